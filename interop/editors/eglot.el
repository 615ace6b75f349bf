;;; eglot.el --- drive a language server with Emacs's Eglot, in batch mode
;;
;; emacs --batch -l eglot.el SERVER FILE
;;
;; Opens FILE in text-mode with SERVER as its language server, waits for
;; Eglot to connect (initialize), asks for a hover at the word "hello",
;; sends what Eglot's shutdown sends (shutdown and exit, their params
;; null), waits for the server to end, and prints one line per step:
;; "connected", "hover: TEXT", "shutdown: ok" (or the error) and
;; "exit: exit STATUS".

(require 'eglot)

(let* ((args command-line-args-left)
       (server (nth 0 args))
       (file (nth 1 args)))
  (setq command-line-args-left nil)
  (setq eglot-server-programs (list (list 'text-mode server)))
  (setq eglot-autoshutdown nil
        eglot-sync-connect 30
        eglot-connect-timeout 30
        eglot-events-buffer-size 0)
  (find-file file)
  (text-mode)
  ;; What M-x eglot does, without asking: a transient project of the
  ;; file's directory, the server as the contact.
  (let ((srv (eglot '(text-mode) (cons 'transient (file-name-directory file))
                    'eglot-lsp-server (list server) "text")))
    (with-timeout (30 (princ "timeout: no connection\n") (kill-emacs 2))
      (while (not (eglot-current-server))
        (accept-process-output nil 0.05)))
    (setq srv (eglot-current-server))
    (princ "connected\n")
    (goto-char (point-min))
    (search-forward "hello")
    (backward-char 2)
    (let* ((params (eglot--TextDocumentPositionParams))
           (hover (jsonrpc-request srv :textDocument/hover params :timeout 30))
           (contents (plist-get hover :contents))
           (value (if (stringp contents) contents (plist-get contents :value))))
      (princ (format "hover: %s\n" value)))
    (let ((proc (jsonrpc--process srv)))
      ;; What eglot-shutdown sends: the request shutdown and the
      ;; notification exit, both with null params. (Emacs 28's jsonrpc.el
      ;; then deletes the process at once; here the server is given the
      ;; time to end on its own first.)
      (condition-case err
          (progn
            (jsonrpc-request srv :shutdown nil :timeout 30)
            (princ "shutdown: ok\n"))
        (error (princ (format "shutdown: %S\n" err))))
      (jsonrpc-notify srv :exit nil)
      (with-timeout (30 (princ "timeout: the server did not exit\n") (kill-emacs 3))
        (while (process-live-p proc)
          (accept-process-output nil 0.05)))
      (princ (format "exit: %s %d\n" (process-status proc) (process-exit-status proc))))))
(kill-emacs 0)
