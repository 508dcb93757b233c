package locks

import "regexp"

var algoName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidName says whether name can name an algorithm: every built-in's name
// and every algorithm file's name field match it (a letter or digit, then
// up to 63 of letters, digits, '_', '.' and '-'). Readers of files that
// name algorithms (a verdict matrix) refuse any other.
func ValidName(name string) bool { return algoName.MatchString(name) }
