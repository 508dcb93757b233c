package model

import (
	"encoding/json"
	"fmt"
)

// Tri is a yes/no answer that can also be "we do not know" (porcupine timed
// out or was skipped). The zero value is Unknown, so nothing claims an answer
// it did not get.
type Tri int8

const (
	Unknown Tri = iota
	Yes
	No
)

func (t Tri) String() string {
	switch t {
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return "unknown"
}

// MarshalJSON writes true, false or "unknown".
func (t Tri) MarshalJSON() ([]byte, error) {
	switch t {
	case Yes:
		return []byte("true"), nil
	case No:
		return []byte("false"), nil
	}
	return []byte(`"unknown"`), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Tri) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v {
	case true:
		*t = Yes
	case false:
		*t = No
	case "unknown":
		*t = Unknown
	default:
		return fmt.Errorf("tri: want true, false or \"unknown\", got %s", b)
	}
	return nil
}
