package foreign

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// message is one line of the protocol (docs/foreign.md), either way: the
// union of every message's fields.
type message struct {
	Op string `json:"op"`

	// hello
	Lang    string `json:"lang,omitempty"`
	Version string `json:"version,omitempty"`
	PID     int    `json:"pid,omitempty"`

	// init
	Name    string      `json:"name,omitempty"`
	Seed    string      `json:"seed,omitempty"`
	Nodes   []string    `json:"nodes,omitempty"`
	Params  *initParams `json:"params,omitempty"`
	Program string      `json:"program,omitempty"`

	// ready
	Fns []string `json:"fns,omitempty"`

	// call, return, raise
	Fn    string  `json:"fn,omitempty"`
	Held  bool    `json:"held,omitempty"`
	Token *string `json:"token,omitempty"`
	Error string  `json:"error,omitempty"`

	// connect, send, close, wait, event
	Conn    int     `json:"conn,omitempty"`
	Addr    string  `json:"addr,omitempty"`
	Data    []byte  `json:"data,omitempty"` // base64 in JSON
	Conns   []int   `json:"conns,omitempty"`
	Timeout *string `json:"timeout,omitempty"` // ns; absent: none
	Ev      string  `json:"ev,omitempty"`

	// log, finding
	Msg string `json:"msg,omitempty"`

	// the worker's clocks, on init, call and event
	Wall string `json:"wall,omitempty"`
	Mono string `json:"mono,omitempty"`
}

// initParams are the run's lock parameters, as the program may read them
// (locksim.params).
type initParams struct {
	Key          string `json:"key"`
	TTLms        int64  `json:"ttl_ms"`
	Retries      int    `json:"retries"`
	RetrySleepms int64  `json:"retry_sleep_ms"`
	Resolutionms int64  `json:"resolution_ms"`
	Nodes        int    `json:"nodes"`
}

// maxLine bounds one message: a worker's write of a few MB is a bug, not a
// command.
const maxLine = 8 << 20

// readMessage reads one line.
func readMessage(r *bufio.Reader) (message, error) {
	var m message
	line, err := r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return m, fmt.Errorf("a message longer than %d bytes", r.Size())
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return m, err
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return m, fmt.Errorf("a message that is not JSON: %.80q", line)
	}
	if m.Op == "" {
		return m, fmt.Errorf("a message with no op: %.80q", line)
	}
	return m, nil
}

// nanos is a time for the protocol: decimal nanoseconds.
func nanos(ns int64) string { return strconv.FormatInt(ns, 10) }
