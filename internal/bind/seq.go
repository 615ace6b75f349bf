package bind

import (
	"context"
	"errors"
	"iter"
	"reflect"
	"strconv"

	"github.com/jsonrpc-go/jsonrpc/internal/keys"
)

// A seqResult is the result of a function that returns a sequence: an
// iter.Seq[T], or an iter.Seq2[T, error] whose error ends it.
type seqResult struct {
	withErr bool
	item    *Func // encodes one item, as a result of the item's type
	max     int   // the bytes a whole array may take (Options.MaxCollect)
}

// errSeqTooLarge is the error of a sequence collected past MaxCollect.
type errSeqTooLarge int

func (e errSeqTooLarge) Error() string {
	return "response exceeds the limit of " + strconv.Itoa(int(e)) + " bytes"
}

// TooLarge reports whether err is that of a sequence result that did not
// fit in one answer, when it was collected into one array.
func TooLarge(err error) bool {
	var e errSeqTooLarge
	return errors.As(err, &e)
}

// seqOf reports whether t is a sequence type, func(yield func(T) bool) or
// func(yield func(T, error) bool), and its item type.
func seqOf(t reflect.Type) (item reflect.Type, withErr, ok bool) {
	if t.Kind() != reflect.Func || t.NumIn() != 1 || t.NumOut() != 0 || t.IsVariadic() {
		return nil, false, false
	}
	y := t.In(0)
	if y.Kind() != reflect.Func || y.NumOut() != 1 || y.Out(0).Kind() != reflect.Bool || y.IsVariadic() {
		return nil, false, false
	}
	switch {
	case y.NumIn() == 1:
		return y.In(0), false, true
	case y.NumIn() == 2 && y.In(1) == errType:
		return y.In(0), true, true
	}
	return nil, false, false
}

// setSeq makes f's result, of the sequence type t, a sequence result.
func (f *Func) setSeq(t reflect.Type, max int) error {
	item, withErr, _ := seqOf(t)
	if err := servable(item); err != nil {
		return err
	}
	it := *f
	it.res = newResult(item)
	it.seq = nil
	f.seq = &seqResult{withErr: withErr, item: &it, max: max}
	f.Seq = true
	return nil
}

// appendSeq sends the sequence v as the result: through the SeqSender of
// ctx, when the call's connection has one, or else as one JSON array,
// bounded by max bytes.
func (f *Func) appendSeq(ctx context.Context, dst []byte, v reflect.Value) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "[]"...), nil
	}
	items := f.seq.pull(v)
	if s, ok := ctx.Value(keys.Sequencer{}).(keys.SeqSender); ok && s != nil {
		if out, err := s.SendSeq(ctx, dst, items); err != keys.ErrNotStreamed {
			return out, err
		}
	}
	defer items.Stop()
	start := len(dst)
	dst = append(dst, '[')
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return dst[:start], err
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		out, ok, err := items.Next(dst)
		if err != nil {
			return dst[:start], err
		}
		if !ok {
			if n > 0 {
				dst = dst[:len(dst)-1]
			}
			break
		}
		dst = out
		if f.seq.max > 0 && len(dst)-start > f.seq.max {
			return dst[:start], errSeqTooLarge(f.seq.max)
		}
	}
	return append(dst, ']'), nil
}

// pull returns the items of the sequence v. Nothing of v runs, and no
// goroutine is made for it, before the first item is asked for: a sender
// that refuses the sequence at once (past a limit) stops it for nothing.
func (s *seqResult) pull(v reflect.Value) *seqItems {
	return &seqItems{s: s, v: v}
}

// start makes the pull of the sequence v: its producer on a goroutine of
// its own (iter.Pull2), which runs only while an item is asked for.
func (s *seqResult) start(v reflect.Value) (func() (reflect.Value, error, bool), func()) {
	// The results of the yield function, made once: reflect copies them
	// out of the slice at each return.
	yes, no := []reflect.Value{reflect.ValueOf(true)}, []reflect.Value{reflect.ValueOf(false)}
	answer := func(more bool) []reflect.Value {
		if more {
			return yes
		}
		return no
	}
	var seq iter.Seq2[reflect.Value, error]
	if s.withErr {
		seq = func(yield func(reflect.Value, error) bool) {
			y := reflect.MakeFunc(v.Type().In(0), func(args []reflect.Value) []reflect.Value {
				var err error
				if e := args[1].Interface(); e != nil {
					err = e.(error)
				}
				return answer(yield(args[0], err))
			})
			v.Call([]reflect.Value{y})
		}
	} else {
		seq = func(yield func(reflect.Value, error) bool) {
			y := reflect.MakeFunc(v.Type().In(0), func(args []reflect.Value) []reflect.Value {
				return answer(yield(args[0], nil))
			})
			v.Call([]reflect.Value{y})
		}
	}
	return iter.Pull2(seq)
}

type seqItems struct {
	s    *seqResult
	v    reflect.Value                       // the sequence, until it is started
	next func() (reflect.Value, error, bool) // nil until the first item is asked for
	stop func()
	done bool
	tmp  reflect.Value // a primitive item's copy, made once, which its encoder reads
}

func (it *seqItems) Next(dst []byte) ([]byte, bool, error) {
	if it.done {
		return dst, false, nil
	}
	if it.next == nil {
		it.next, it.stop = it.s.start(it.v)
		it.v = reflect.Value{}
	}
	v, err, ok := it.next()
	if !ok {
		it.done = true
		return dst, false, nil
	}
	if err != nil {
		it.done = true
		it.stop()
		return dst, false, err
	}
	out, err := it.appendItem(dst, v)
	if err != nil {
		it.done = true
		it.stop()
		return dst, false, err
	}
	return out, true, nil
}

// appendItem appends the JSON of the item v.
func (it *seqItems) appendItem(dst []byte, v reflect.Value) ([]byte, error) {
	f := it.s.item
	if f.res.raw || f.res.class == classNone {
		return f.appendValue(dst, v)
	}
	if !it.tmp.IsValid() {
		it.tmp = reflect.New(f.res.t)
	}
	it.tmp.Elem().Set(v)
	return f.appendResult(dst, it.tmp.UnsafePointer())
}

func (it *seqItems) Stop() {
	it.done = true
	if it.stop != nil {
		it.stop()
	}
}
