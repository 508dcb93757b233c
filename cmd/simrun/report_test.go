package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run prints the timeline, --trace adds the command trace, --html writes the
// report; output that is not a terminal gets no colour.
func TestRunReportFlags(t *testing.T) {
	page := filepath.Join(t.TempDir(), "report.html")
	code, out, errOut := simrun("run", "del-race", "--trace", "--html", page)
	if code != exitViolation {
		t.Fatalf("exit %d, want %d (stderr %q)", code, exitViolation, errOut)
	}
	for _, want := range []string{"timeline   ", "1 column = ", "\noverlap ", "\ntrace ", "SETNX lock.foo"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour codes in output that is not a terminal")
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte(`<svg class="timeline"`)) || !bytes.Contains(html, []byte("srcdoc=")) {
		t.Error("the HTML report lacks its timeline or porcupine's page")
	}
	_, plain, _ := simrun("run", "del-race")
	if strings.Contains(plain, "\ntrace ") {
		t.Error("the trace without --trace")
	}
}

func TestColorOK(t *testing.T) {
	if colorOK(&bytes.Buffer{}) {
		t.Error("colour for a buffer")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if colorOK(f) {
		t.Error("colour for a file")
	}
}

func TestRunHTMLBadPath(t *testing.T) {
	code, _, errOut := simrun("run", "del-race", "--html", filepath.Join(t.TempDir(), "no", "such", "dir", "r.html"))
	if code != exitUsage || !strings.Contains(errOut, "simrun run:") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
