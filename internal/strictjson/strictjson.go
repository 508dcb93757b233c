// Package strictjson decodes JSON as encoding/json does, but strictly:
// every object key must be a field's JSON name spelled exactly, and none may
// be unknown. encoding/json matches keys in any case ("fAult" fills Fault),
// so a file it accepts may hold what no writer of ours wrote.
package strictjson

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Unmarshal decodes data into v (a pointer), refusing an unknown key or a
// key in another case than its field's JSON name with an error that names
// where it is ("cells[0]: unknown field \"fAult\"").
func Unmarshal(data []byte, v any) error {
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if err := checkKeys(raw, reflect.TypeOf(v), ""); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// checkKeys walks the decoded value val against type t. What does not fit
// t's shape is left to json.Unmarshal, which names it.
func checkKeys(val any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch x := val.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys) // the first error is the same at every run
		for _, k := range keys {
			var elem reflect.Type
			switch t.Kind() {
			case reflect.Struct:
				f, ok := fieldByJSONName(t, k)
				if !ok {
					return fmt.Errorf("%sunknown field %q", at(path), k)
				}
				elem = f
			case reflect.Map:
				elem = t.Elem()
			default:
				return nil
			}
			if err := checkKeys(x[k], elem, join(path, k)); err != nil {
				return err
			}
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return nil
		}
		for i, e := range x {
			if err := checkKeys(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// fieldByJSONName is the type of t's exported field whose JSON name is
// exactly name.
func fieldByJSONName(t reflect.Type, name string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch tag {
		case "-":
			continue
		case "":
			tag = f.Name
		}
		if tag == name {
			return f.Type, true
		}
	}
	return nil, false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func at(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}
