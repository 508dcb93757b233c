package book

import (
	"bytes"
	"os"
	"regexp"
	"testing"
)

// The README says how to build the book and shows its index: the command
// is the one simrun has, and the screenshot is a PNG in the repository.
func TestREADME(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skip("README.md not found")
	}
	if !bytes.Contains(data, []byte("go run ./cmd/simrun book -o site")) {
		t.Error("README lacks the line that builds the book")
	}
	m := regexp.MustCompile(`!\[[^\]]*\]\((docs/book-index\.png)\)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("README shows no screenshot of the book's index")
	}
	png, err := os.ReadFile("../" + string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 20_000 {
		t.Errorf("%s is not a screenshot (%d bytes)", m[1], len(png))
	}
}
