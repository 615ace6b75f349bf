package mcpserver

import (
	"context"
	"strings"
)

// A Prompt is a prompt as prompts/list describes it.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// A PromptArgument is an argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// A PromptMessage is a message of a prompt: its role ("user" or
// "assistant") and its content.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// A PromptResult is what prompts/get answers.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

type prompt struct {
	Prompt
	get func(ctx context.Context, args map[string]string) (*PromptResult, error)
}

// AddPrompt registers the prompt p, for prompts/list and prompts/get,
// which calls get with the arguments given, once the package has checked
// that the required ones are there (-32602 otherwise). An error get
// returns is answered as a method's. It panics for a prompt without a
// name, or one registered already.
func (s *Server) AddPrompt(p Prompt, get func(ctx context.Context, args map[string]string) (*PromptResult, error)) {
	if p.Name == "" || get == nil {
		panic("mcpserver: a prompt needs a name and a get function")
	}
	s.register(func(reg *registry) {
		if reg.promptIndex[p.Name] != nil {
			panic("mcpserver: the prompt " + p.Name + " is registered already")
		}
		pr := &prompt{p, get}
		reg.prompts = append(reg.prompts, pr)
		reg.promptIndex[p.Name] = pr
	})
}

type (
	listPromptsResult struct {
		resultFields
		Prompts []*Prompt `json:"prompts"`
		cacheFields
	}
	getPromptParams struct {
		Name      *string           `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	getPromptResult struct {
		resultFields
		*PromptResult
	}
)

func (s *Server) listPrompts(ctx context.Context, _ struct{}) listPromptsResult {
	r := RequestOf(ctx)
	reg := s.reg.Load()
	list := make([]*Prompt, len(reg.prompts))
	for i, p := range reg.prompts {
		list[i] = &p.Prompt
	}
	return listPromptsResult{resultFields: r.complete(), Prompts: list, cacheFields: r.cache(s.ttl())}
}

func (s *Server) getPrompt(ctx context.Context, p getPromptParams) (*getPromptResult, error) {
	r := RequestOf(ctx)
	if p.Name == nil {
		return nil, invalidParams("prompts/get: name is required")
	}
	pr := s.reg.Load().promptIndex[*p.Name]
	if pr == nil {
		return nil, invalidParams("Unknown prompt: %s", *p.Name)
	}
	for _, a := range pr.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok {
			return nil, invalidParams("prompts/get %s: the argument %s is required", pr.Name, a.Name)
		}
	}
	if p.Arguments == nil {
		p.Arguments = map[string]string{}
	}
	res, err := pr.get(ctx, p.Arguments)
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &PromptResult{}
	}
	if res.Messages == nil {
		res.Messages = []PromptMessage{}
	}
	return &getPromptResult{r.complete(), res}, nil
}

// A CompleteRequest asks for the values an argument may take
// (completion/complete): the prompt's (Ref.Type "ref/prompt", Ref.Name)
// or the resource template's (Ref.Type "ref/resource", Ref.URI), the
// argument and what the user has typed of it, and the values of the
// other arguments given so far.
type CompleteRequest struct {
	Ref struct {
		Type string `json:"type"`
		Name string `json:"name,omitempty"`
		URI  string `json:"uri,omitempty"`
	} `json:"ref"`
	Argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
	Context struct {
		Arguments map[string]string `json:"arguments,omitempty"`
	} `json:"context"`
}

// A Completion is what completion/complete answers: at most 100 values,
// the number of them all when known, and whether there are more.
type Completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// Complete returns a Completion of the values among all that begin with
// prefix, case-insensitively, the first 100 of them.
func Complete(prefix string, all ...string) Completion {
	c := Completion{Values: []string{}}
	for _, v := range all {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(prefix)) {
			c.Values = append(c.Values, v)
		}
	}
	c.Total = len(c.Values)
	if len(c.Values) > 100 {
		c.Values, c.HasMore = c.Values[:100], true
	}
	return c
}

// HandleCompletion sets the function that answers completion/complete,
// and declares the capability "completions". The package checks the
// request's ref (-32602 for one that is neither kind) before f runs.
func (s *Server) HandleCompletion(f func(ctx context.Context, req *CompleteRequest) (Completion, error)) {
	s.register(func(reg *registry) { reg.complete = f })
}

type completeParams struct {
	Ref *struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument *struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
	Context struct {
		Arguments map[string]string `json:"arguments"`
	} `json:"context"`
}

type completeResult struct {
	resultFields
	Completion Completion `json:"completion"`
}

func (s *Server) complete(ctx context.Context, p completeParams) (*completeResult, error) {
	f := s.reg.Load().complete
	if f == nil {
		return nil, invalidParams("completion/complete: this server offers no completions")
	}
	if p.Ref == nil || p.Argument == nil {
		return nil, invalidParams("completion/complete: ref and argument are required")
	}
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name != "":
	case p.Ref.Type == "ref/resource" && p.Ref.URI != "":
	default:
		return nil, invalidParams(`completion/complete: ref must be {"type": "ref/prompt", "name"} or {"type": "ref/resource", "uri"}`)
	}
	req := &CompleteRequest{}
	req.Ref.Type, req.Ref.Name, req.Ref.URI = p.Ref.Type, p.Ref.Name, p.Ref.URI
	req.Argument.Name, req.Argument.Value = p.Argument.Name, p.Argument.Value
	req.Context.Arguments = p.Context.Arguments
	c, err := f(ctx, req)
	if err != nil {
		return nil, err
	}
	if c.Values == nil {
		c.Values = []string{}
	}
	return &completeResult{RequestOf(ctx).complete(), c}, nil
}
