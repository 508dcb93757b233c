package book

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// hrefs are the link targets of a page, outside porcupine's page (its
// srcdoc is an escaped attribute value, so its quotes are &#34;).
var hrefs = regexp.MustCompile(`\s(?:href|src)="([^"]*)"`)

// CheckLinks says what is wrong with a site's links, one line each, sorted:
// each must be a relative path to a file of the site (and to an id on it,
// if it names one). Render fails on any.
func CheckLinks(files []File) []string {
	site := map[string][]byte{}
	for _, f := range files {
		site[f.Path] = f.Data
	}
	var bad []string
	for _, f := range files {
		p, data := f.Path, f.Data
		if !strings.HasSuffix(p, ".html") {
			continue
		}
		for _, m := range hrefs.FindAllSubmatch(data, -1) {
			target := string(m[1])
			file, frag, _ := strings.Cut(target, "#")
			switch {
			case strings.Contains(file, ":") || strings.HasPrefix(file, "/"):
				bad = append(bad, fmt.Sprintf("%s: %q leaves the site", p, target))
				continue
			case file == "":
				file = p
			default:
				file = path.Join(path.Dir(p), file)
			}
			page, ok := site[file]
			switch {
			case !ok || strings.HasPrefix(file, "../"):
				bad = append(bad, fmt.Sprintf("%s: %q is no file of the site", p, target))
			case frag != "" && !bytes.Contains(page, []byte(`id="`+frag+`"`)):
				bad = append(bad, fmt.Sprintf("%s: %q: %s has no id %q", p, target, file, frag))
			}
		}
	}
	slices.Sort(bad)
	return bad
}
