package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/bench/internal/realistic"
	"github.com/jsonrpc-go/jsonrpc/codec/fast"
)

// realCodec is one codec of the real mode: its column name and its value.
type realCodec struct {
	name  string
	codec jsonrpc.Codec
}

var realCodecs = []realCodec{{"json", jsonrpc.JSONCodec{}}, {"fast", fast.Codec{}}}

// realRow names the row of method m served by server (lib) or by its floor,
// with codec c.
func realRow(m, what, c string) string { return m + "/" + what + "-" + c }

// real measures the realistic workload (package realistic) through Process
// with each codec, and each method's floor with the same codec: decoding
// the params into the typed values and encoding the result, without an
// envelope. It prints each method's ratio to its floor from the best run of
// each row: on a shared machine, noise only slows a run down.
func (e *env) real(args []string) int {
	fs := e.flags("real", "[-d 1s] [-runs R] [-json FILE]",
		"Measures the realistic methods (createUser, search, getBlock, echoRaw) through\n"+
			"(*jsonrpc.Server).Process on one worker, registered with Register and as typed\n"+
			"methods (jsonrpc.Typed), with the default codec (encoding/json)\n"+
			"and with codec/fast, against each method's floor with the same codec: the\n"+
			"params decoded into the typed values and the result encoded, no envelope.\n"+
			"Each run measures every row once, so that the ratios share machine conditions.")
	rf := addRunFlags(fs, "duration of each run", "runs per row; the table shows the median")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if msg := rf.problem(); msg != "" {
		return e.badFlag(fs, msg)
	}
	var targets []*Target
	for _, c := range realCodecs {
		srv, err := realistic.NewServer(jsonrpc.UseCodec(c.codec))
		if err != nil {
			return e.refuse(err)
		}
		typed, err := realistic.NewTypedServer(jsonrpc.UseCodec(c.codec))
		if err != nil {
			return e.refuse(err)
		}
		for _, m := range realistic.Methods {
			lib := &Target{
				Name:       realRow(m.Name, "lib", c.name),
				CallsPerOp: 1,
				Reqs:       byteSlices([]string{m.Request}),
				Want:       byteSlices([]string{m.Response}),
				NewWorker:  syncEntry(srv),
			}
			floor := &Target{
				Name:       realRow(m.Name, "floor", c.name),
				CallsPerOp: 1,
				Reqs:       byteSlices([]string{m.Params}),
				Want:       byteSlices([]string{m.Result}),
				NewWorker: func() ProcessFunc {
					codec, f := c.codec, m.Floor
					return func(dst, req []byte) []byte {
						out, err := f(codec, dst, req)
						if err != nil {
							return append(dst[:0], err.Error()...)
						}
						return out
					}
				},
			}
			tl := *lib
			tl.Name, tl.NewWorker = realRow(m.Name, "typed", c.name), syncEntry(typed)
			targets = append(targets, lib, &tl, floor)
		}
	}
	for _, t := range targets {
		if err := t.Validate(); err != nil {
			return e.refuse(err)
		}
	}
	d, runs := *rf.d, *rf.runs
	ms := make([][]Measurement, len(targets))
	for k := range runs {
		for i, t := range targets {
			m, err := e.measure(t, 1, d, k+1, runs)
			if err != nil {
				return e.refuse(err)
			}
			ms[i] = append(ms[i], m)
		}
	}
	rep := newReport("real", d)
	rows := map[string]Row{}
	for i, t := range targets {
		r := newRow(t.Name, 1, ms[i])
		rep.Rows = append(rep.Rows, r)
		rows[t.Name] = r
	}
	e.header(rep, "Process against the floor of each method, 1 worker; best run of each row", runs)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tcodec\tfloor ns/call\tRegister/floor\tTyped/floor\tfloor allocs\tRegister allocs\tTyped allocs\t")
	for _, m := range realistic.Methods {
		for _, c := range realCodecs {
			lib, typed, floor := rows[realRow(m.Name, "lib", c.name)], rows[realRow(m.Name, "typed", c.name)], rows[realRow(m.Name, "floor", c.name)]
			fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.2f×\t%.2f×\t%.2f\t%.2f\t%.2f\t\n", m.Name, c.name, 1e9/floor.MaxRPS,
				ratio(floor.MaxRPS, lib.MaxRPS), ratio(floor.MaxRPS, typed.MaxRPS),
				floor.AllocsPerCall, lib.AllocsPerCall, typed.AllocsPerCall)
		}
	}
	tw.Flush()
	return e.writeJSON(rep, *rf.jsonFile, 0)
}
