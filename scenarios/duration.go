package scenarios

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/internal/strictyaml"
	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration written the Go way in files: "1.5s", "200ms".
type Duration time.Duration

// D is the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 1.5s or 200ms", n.Line)
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration (write it like 1.5s or 200ms)", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Latency is fixed ("2ms") or uniform in a range ({min: 1ms, max: 5ms}).
type Latency struct {
	Min Duration `yaml:"min"`
	Max Duration `yaml:"max"`
}

func (l Latency) MarshalYAML() (any, error) {
	if l.Min == l.Max {
		return l.Min.MarshalYAML()
	}
	type plain Latency
	return plain(l), nil
}

func (l *Latency) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var d Duration
		if err := d.UnmarshalYAML(n); err != nil {
			return err
		}
		l.Min, l.Max = d, d
		return nil
	}
	type plain Latency
	var p plain
	if err := strictyaml.DecodeNode(n, &p); err != nil {
		return err
	}
	*l = Latency(p)
	return nil
}
