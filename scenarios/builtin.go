package scenarios

import (
	"embed"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
)

//go:embed builtin/*.yaml
var builtinFiles embed.FS

var builtins = sync.OnceValues(func() ([]*Scenario, error) {
	entries, err := builtinFiles.ReadDir("builtin")
	if err != nil {
		return nil, err
	}
	var out []*Scenario
	for _, e := range entries {
		data, err := builtinFiles.ReadFile(path.Join("builtin", e.Name()))
		if err != nil {
			return nil, err
		}
		s, err := Parse("built-in "+e.Name(), data)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
})

// Builtins lists the built-in scenarios by name. Each call returns copies the
// caller may change.
func Builtins() []*Scenario {
	list, err := builtins()
	if err != nil {
		panic("locksim: a built-in scenario is invalid: " + err.Error()) // caught by the package tests
	}
	out := make([]*Scenario, len(list))
	for i, s := range list {
		out[i] = s.Clone()
	}
	return out
}

// Names lists the built-in scenarios' names.
func Names() []string {
	var names []string
	for _, s := range Builtins() {
		names = append(names, s.Name)
	}
	return names
}

// Lookup finds a built-in scenario by name.
func Lookup(name string) (*Scenario, error) {
	for _, s := range Builtins() {
		if s.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unknown scenario %q (valid: %s, or a .yaml file)", name, strings.Join(Names(), ", "))
}

// Resolve takes a built-in scenario's name or a scenario file's path.
func Resolve(arg string) (*Scenario, error) {
	if strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") || strings.ContainsRune(arg, os.PathSeparator) {
		return Load(arg)
	}
	return Lookup(arg)
}

// Clone is a deep copy: the slices and pointers are copied, so callers
// (the built-ins' users, the shrinker in explore/gen) cannot change the
// original.
func (s *Scenario) Clone() *Scenario {
	c := *s
	c.Nodes = append([]Node(nil), s.Nodes...)
	c.Clients = append([]Client(nil), s.Clients...)
	c.Faults = append([]Fault(nil), s.Faults...)
	if s.AlgorithmFile != nil {
		f := *s.AlgorithmFile
		c.AlgorithmFile = &f
	}
	for i, f := range c.Faults {
		if f.On != nil {
			on := *f.On
			c.Faults[i].On = &on
		}
		if f.Node != nil {
			n := *f.Node
			c.Faults[i].Node = &n
		}
	}
	return &c
}
