package scenarios

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// README.md is the front page (what locksim is, the two commands, a short
// tour): reference lives in docs/. It stays under 25 kB, and every link of
// the README and the docs pages to a file or a heading in the repository
// leads somewhere.
func TestREADMEIsAFrontPageAndLinksResolve(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skip("README.md not found")
	}
	if len(readme) > 25_000 {
		t.Errorf("README.md is %d bytes, want at most 25,000: move reference to docs/", len(readme))
	}
	pages, _ := filepath.Glob("../docs/*.md")
	if len(pages) == 0 {
		t.Fatal("no docs pages")
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range append([]string{"../README.md"}, pages...) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), path)
			}
			body, err := os.ReadFile(file)
			if err != nil {
				if _, serr := os.Stat(file); serr != nil {
					t.Errorf("%s links to %s: no such file", page, target)
				}
				continue // a directory
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !hasHeading(string(body), anchor) {
				t.Errorf("%s links to %s: no such heading", page, target)
			}
		}
	}
}

// hasHeading says whether markdown text has a heading whose GitHub anchor is
// anchor: lower case, spaces as dashes, punctuation other than - and _ gone.
func hasHeading(text, anchor string) bool {
	punct := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		if strings.ReplaceAll(punct.ReplaceAllString(h, ""), " ", "-") == anchor {
			return true
		}
	}
	return false
}
