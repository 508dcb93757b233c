package scenarios

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/locksim/locksim/internal/strictyaml"
	"github.com/locksim/locksim/internal/userfile"
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
	if err := strictyaml.Decode(data, &s); err != nil {
		if errors.Is(err, strictyaml.ErrEmpty) {
			return nil, fmt.Errorf("%s: empty scenario", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if s.Duration == 0 {
		s.Duration = Duration(DefaultDuration)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := s.prepareWording(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}

// Load reads and validates a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := userfile.Read(path, MaxFileSize) // no FIFO, device or oversized file is read
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
