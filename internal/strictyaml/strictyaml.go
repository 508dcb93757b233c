// Package strictyaml reads the one YAML document of a user's file (a
// scenario, an algorithm file): unknown fields are refused, and errors are
// one line in the user's words, without Go type names.
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrEmpty is a file with no YAML document in it.
var ErrEmpty = errors.New("empty file")

// Decode decodes the only document of data into v.
func Decode(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return ErrEmpty
		}
		return errors.New(Message(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("more than one YAML document: the file has one")
	}
	return nil
}

// DecodeNode decodes n into v refusing unknown fields, for custom
// unmarshalers: yaml.v3 does not carry KnownFields into them.
func DecodeNode(n *yaml.Node, v any) error {
	data, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		// Line numbers of the re-encoded node are not the file's.
		return fmt.Errorf("line %d: %s", n.Line, reLine.ReplaceAllString(Message(err), ""))
	}
	return nil
}

var (
	reUnknownField = regexp.MustCompile(`field (\S+) not found in type \S+`)
	reTypeMismatch = regexp.MustCompile("cannot unmarshal !!(\\w+) `(.*)` into (\\S+)")
	reNodeMismatch = regexp.MustCompile(`cannot unmarshal !!(seq|map) into (\S+)`)
	reLine         = regexp.MustCompile(`^line \d+: `)
)

// Message makes a yaml.v3 error one line without Go type names.
func Message(err error) string {
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
	msg = reUnknownField.ReplaceAllString(msg, `unknown field "$1"`)
	msg = reTypeMismatch.ReplaceAllStringFunc(msg, func(m string) string {
		g := reTypeMismatch.FindStringSubmatch(m)
		return fmt.Sprintf("%q is not %s", g[2], typeWord(g[3]))
	})
	msg = reNodeMismatch.ReplaceAllStringFunc(msg, func(m string) string {
		g := reNodeMismatch.FindStringSubmatch(m)
		what := map[string]string{"seq": "list", "map": "mapping"}[g[1]]
		return fmt.Sprintf("a %s where %s belongs", what, typeWord(g[2]))
	})
	if i := strings.IndexAny(msg, "\r\n"); i >= 0 {
		msg = msg[:i]
	}
	return msg + more
}

// typeWord names a Go type the way a file's author thinks of it.
func typeWord(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "text"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	default:
		return "a mapping"
	}
}
