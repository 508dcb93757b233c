package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxFileSize bounds a scenario file: a real one is a few kilobytes.
const MaxFileSize = 1 << 20

// Parse reads one scenario from YAML and validates it. name is used in
// errors (a file name). Errors are one line.
func Parse(name string, data []byte) (*Scenario, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: file is %d bytes, more than the %d a scenario may have", name, len(data), MaxFileSize)
	}
	var s Scenario
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty scenario", name)
		}
		return nil, fmt.Errorf("%s: %s", name, yamlError(err))
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}

// Load reads and validates a scenario file.
func Load(path string) (*Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	return Parse(path, data)
}

// Marshal writes a scenario as YAML that Parse reads back to the same value.
func Marshal(s *Scenario) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// decodeStrict decodes a node rejecting unknown fields: yaml.v3 does not
// carry KnownFields into custom unmarshalers.
func decodeStrict(n *yaml.Node, v any) error {
	data, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		// Line numbers of the re-encoded node are not the file's.
		return fmt.Errorf("line %d: %s", n.Line, stripLine(yamlError(err)))
	}
	return nil
}

var (
	reUnknown = regexp.MustCompile(`field (\S+) not found in type \S+`)
	reType    = regexp.MustCompile("cannot unmarshal !!(\\w+) `(.*)` into (\\S+)")
	reLine    = regexp.MustCompile(`^line \d+: `)
)

// yamlError makes yaml.v3's messages one line without Go type names.
func yamlError(err error) string {
	var te *yaml.TypeError
	msg := err.Error()
	more := ""
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
		if len(te.Errors) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(te.Errors)-1)
		}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = reUnknown.ReplaceAllString(msg, `unknown field "$1"`)
	msg = reType.ReplaceAllStringFunc(msg, func(m string) string {
		g := reType.FindStringSubmatch(m)
		return fmt.Sprintf("%q is not %s", g[2], goTypeWord(g[3]))
	})
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg + more
}

func stripLine(msg string) string { return reLine.ReplaceAllString(msg, "") }

func goTypeWord(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string":
		return "text"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	default:
		return "a mapping"
	}
}
