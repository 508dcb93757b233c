package reports

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/judge"
	"github.com/locksim/locksim/sim"
)

// porcupine's page is not byte-stable (porcupine iterates a map), so the
// golden files hold the report with the iframe's srcdoc replaced by a
// placeholder; TestHTMLPorcupine checks that part on its own. The srcdoc
// value is attribute-escaped, so it holds no double quote.
var srcdoc = regexp.MustCompile(`srcdoc="[^"]*"`)

func normalise(html []byte) []byte {
	return srcdoc.ReplaceAll(html, []byte(`srcdoc="(porcupine's page)"`))
}

func writeHTML(t *testing.T, o *judge.Outcome) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestHTMLGolden(t *testing.T) {
	cases := []struct {
		file    string
		outcome func(*testing.T) *judge.Outcome
	}{
		{"del-race.html.golden", func(t *testing.T) *judge.Outcome { return builtin(t, "del-race") }},
		{"node-restart.html.golden", nodeRestart},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			html := writeHTML(t, c.outcome(t))
			if n := len(srcdoc.FindAll(html, -1)); n != 1 {
				t.Fatalf("%d srcdoc attributes, want 1", n)
			}
			golden(t, c.file, normalise(html))
		})
	}
}

// The report needs no network: no scripts, styles, images or frames from
// anywhere, in our part or in porcupine's.
func TestHTMLSelfContained(t *testing.T) {
	html := string(writeHTML(t, builtin(t, "del-race")))
	page := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&amp;", "&").Replace(html)
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<(script|img|iframe|link|source|embed|object)\b[^>]*\b(src|href|data)\s*=`),
		regexp.MustCompile(`(?i)url\(\s*['"]?(https?:)?//`),
		regexp.MustCompile(`(?i)@import`),
		regexp.MustCompile(`(?i)\bfetch\(|XMLHttpRequest`),
	} {
		if m := bad.FindString(page); m != "" {
			t.Errorf("the report loads something: %q", m)
		}
	}
}

func TestHTMLPorcupine(t *testing.T) {
	html := string(writeHTML(t, builtin(t, "del-race")))
	m := srcdoc.FindString(html)
	for _, want := range []string{"&lt;!doctype html&gt;", "&lt;script&gt;", "c1 and c2 both hold"} {
		if !strings.Contains(m, want) {
			t.Errorf("porcupine's page lacks %q", want)
		}
	}
	// The escaped page holds no raw markup that could end the attribute.
	if strings.ContainsAny(m[len(`srcdoc="`):len(m)-1], `<>"`) {
		t.Error("porcupine's page is not escaped")
	}
}

func TestHTMLContent(t *testing.T) {
	html := string(writeHTML(t, builtin(t, "del-race")))
	for _, want := range []string{
		`<svg class="timeline"`, `class="st-holding overlap"`, `class="cmd witness"`, "<title>", // hover details
		"The race the Redis SETNX page", // the narrative
		"SETNX lock.foo 1767225609",     // the trace
		`<span class="verdict bad">unsafe</span>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// browser finds a headless-capable Chromium on PATH.
func browser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestHTMLInChromium loads two reports in headless Chromium, when one is
// installed, checks what the page's scripts left in the DOM (the timeline,
// porcupine's frame grown to its drawing so nothing is clipped, the trace at
// full width) and takes a screenshot of each. LOCKSIM_SCREENSHOTS=DIR keeps
// the screenshots there for a person to look at.
func TestHTMLInChromium(t *testing.T) {
	bin := browser()
	if bin == "" {
		fmt.Println("TestHTMLInChromium skipped: no chromium, chromium-browser or google-chrome on PATH")
		t.Skip("no chromium, chromium-browser or google-chrome on PATH")
	}
	if testing.Short() {
		t.Skip("starts a browser")
	}
	for _, name := range []string{"del-race", "fenced-pause"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			page := filepath.Join(dir, "report.html")
			if err := os.WriteFile(page, writeHTML(t, builtin(t, name)), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
				"--user-data-dir=" + filepath.Join(dir, "profile"), "--virtual-time-budget=3000"}
			out, err := exec.CommandContext(ctx, bin, append(args, "--dump-dom", "file://"+page)...).Output()
			if err != nil {
				fmt.Printf("TestHTMLInChromium skipped: %s could not run here: %v\n", bin, err)
				t.Skipf("%s could not run here: %v", bin, err)
			}
			dom := string(out)
			for _, want := range []string{`<svg class="timeline"`, `class="st-holding overlap"`, `class="lane-label"`, "<iframe",
				`<th>reply</th>`, `<th>key after</th>`} {
				if !strings.Contains(dom, want) {
					t.Errorf("the rendered DOM lacks %q", want)
				}
			}
			if strings.Contains(dom, `class="side"`) {
				t.Error("the trace shares its width with porcupine's panel")
			}
			// The frame starts 360px high; fitPorcupine grows it to the drawing.
			m := regexp.MustCompile(`<iframe class="porcupine"[^>]*style="height: (\d+)px`).FindStringSubmatch(dom)
			if m == nil {
				t.Errorf("porcupine's frame was not fitted to its drawing")
			} else if h, _ := strconv.Atoi(m[1]); h <= 100 {
				t.Errorf("porcupine's frame is %dpx high", h)
			}
			shot := filepath.Join(dir, "shot.png")
			if keep := os.Getenv("LOCKSIM_SCREENSHOTS"); keep != "" {
				shot = filepath.Join(keep, name+".png")
			}
			cmd := exec.CommandContext(ctx, bin, append(args, "--window-size=1400,2600", "--screenshot="+shot, "file://"+page)...)
			if err := cmd.Run(); err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
				t.Errorf("screenshot missing or blank: %v", err)
			}
		})
	}
}

// Every class the timeline fills with a colour has a legend entry, and a
// violation band does not take the crashed colour.
func TestHTMLLegendCoversColours(t *testing.T) {
	legend := map[string]bool{}
	for _, e := range legendEntries {
		legend[e.Class] = true
	}
	for _, name := range []string{"del-race", "fenced-pause", "redlock-node-restart", "crash-deadlock"} {
		d := htmlReport(builtin(t, name))
		for _, rs := range [][]svgRect{d.SVG.Bands, d.SVG.Rects, d.SVG.Folds} {
			for _, r := range rs {
				c := r.Class
				if strings.HasPrefix(c, "key k") {
					c = "key k0"
				}
				if !legend[c] {
					t.Errorf("%s: class %q is drawn but not in the legend", name, r.Class)
				}
			}
		}
		if len(d.Legend) == 0 {
			t.Errorf("%s: empty legend", name)
		}
	}
	fill := func(class string) string {
		m := regexp.MustCompile(`(?m)^\.` + class + ` \{ fill: (#[0-9a-f]+)`).FindStringSubmatch(reportTmpl)
		if m == nil {
			t.Fatalf("no fill for .%s in the template", class)
		}
		return m[1]
	}
	// Violations are red; crashed must not be a red of any shade, or a
	// faint red band reads as "crashed".
	var r, g, b int
	if _, err := fmt.Sscanf(fill("st-crashed"), "#%02x%02x%02x", &r, &g, &b); err != nil {
		t.Fatal(err)
	}
	if r > g+40 && r > b+40 {
		t.Errorf("crashed is drawn in a red (%s), the violations' colour", fill("st-crashed"))
	}
	if fill("band") == fill("st-crashed") || fill("violation") == fill("st-crashed") {
		t.Error("violations reuse the crashed colour")
	}
}

// Fold tooltips read in round units.
func TestRoundDur(t *testing.T) {
	for _, c := range []struct {
		t    sim.Time
		want string
	}{{2963456789, "2.96s"}, {36543210, "36.5ms"}, {999, "999ns"}, {5 * sim.Time(time.Second), "5s"}} {
		if got := roundDur(c.t); got != c.want {
			t.Errorf("roundDur(%d) = %s, want %s", c.t, got, c.want)
		}
	}
	d := htmlReport(builtin(t, "del-race"))
	for _, f := range d.SVG.Folds {
		if regexp.MustCompile(`\d\.\d{3,}`).MatchString(f.Title) {
			t.Errorf("fold tooltip not in round units: %q", f.Title)
		}
	}
}
