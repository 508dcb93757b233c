package model

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

func TestPrecedence(t *testing.T) {
	tests := []struct {
		kinds []string
		want  string
	}{
		{nil, VerdictSafe},
		{[]string{KindClientError}, VerdictClientError},
		{[]string{KindClientError, KindStale}, VerdictStale},
		{[]string{KindStale, KindStuck, KindClientError}, VerdictStuck},
		{[]string{KindStuck, KindOverlap}, VerdictUnsafe},
		{[]string{KindClientError, KindLostUpdate}, VerdictUnsafe},
		{[]string{KindNotLinearizable}, VerdictUnsafe},
	}
	for _, tc := range tests {
		var vs []Violation
		for _, k := range tc.kinds {
			vs = append(vs, Violation{Kind: k})
		}
		if got := verdictOf(vs); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.kinds, got, tc.want)
		}
	}
}

// Every finding is listed, worst verdict wins, order is by From.
func TestAllFindingsListed(t *testing.T) {
	h := crashedHolder().retries(1, ms(200), ms(3500)).
		acquire(1, ms(3500), ms(3501), 0).acquire(0, ms(3502), ms(3503), 0).release(1, ms(3504), ms(3505)).
		end(1, ms(3510), "boom").build()
	v := Check(h, Options{TTL: time.Second})
	want := []string{KindStuck, KindOverlap, KindClientError}
	if v.Verdict != VerdictUnsafe || !slices.Equal(kinds(v), want) {
		t.Fatalf("got %s %v, want unsafe %v", v.Verdict, kinds(v), want)
	}
	if again := Check(h, Options{TTL: time.Second}); !reflect.DeepEqual(v, again) {
		t.Errorf("two checks of one history differ")
	}
}

func TestSortViolations(t *testing.T) {
	vs := []Violation{
		{Kind: KindStale, From: 5, Processes: []string{"b"}},
		{Kind: KindOverlap, From: 5, Processes: []string{"b", "c"}},
		{Kind: KindOverlap, From: 5, Processes: []string{"a", "c"}},
		{Kind: KindStuck, From: 1},
	}
	sortViolations(vs)
	var got []string
	for _, v := range vs {
		got = append(got, v.Kind+":"+strings.Join(v.Processes, ","))
	}
	want := []string{"stuck:", "overlap:a,c", "overlap:b,c", "stale:b"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestVerdictJSON(t *testing.T) {
	v := Verdict{
		Verdict: VerdictUnsafe,
		Violations: []Violation{{Kind: KindOverlap, Processes: []string{"c1", "c2"}, From: ms(1) + 500_000, To: ms(2000),
			Detail: "both held it", Witness: []sim.Event{{Kind: sim.KindCommand, Args: []string{"GET", "lock"}}}}},
		Linearizable:         No,
		ResourceLinearizable: Unknown,
		Notes:                []Note{{Processes: []string{"c1"}, From: ms(3), To: ms(30003), Text: "lost"}},
	}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"verdict":"unsafe","violations":[{"kind":"overlap","processes":["c1","c2"],` +
		`"from":"2026-01-01T00:00:00.0015Z","to":"2026-01-01T00:00:02Z","detail":"both held it"}],` +
		`"linearizable":false,"resource_linearizable":"unknown",` +
		`"notes":[{"processes":["c1"],"from":"2026-01-01T00:00:00.003Z","to":"2026-01-01T00:00:30.003Z","text":"lost"}]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	empty, _ := json.Marshal(Check(sim.History{}, Options{}))
	if want := `{"verdict":"safe","violations":[],"linearizable":true,"resource_linearizable":true,"notes":[]}`; string(empty) != want {
		t.Errorf("got  %s\nwant %s", empty, want)
	}
}

func TestTriJSON(t *testing.T) {
	for _, x := range []Tri{Yes, No, Unknown} {
		b, _ := json.Marshal(x)
		var y Tri
		if err := json.Unmarshal(b, &y); err != nil || y != x {
			t.Errorf("%v → %s → %v, %v", x, b, y, err)
		}
	}
	var y Tri
	if err := json.Unmarshal([]byte(`"maybe"`), &y); err == nil {
		t.Errorf("want an error for \"maybe\"")
	}
}

// Skipping porcupine leaves its answers unknown, never guessed, while the
// direct checks still judge.
func TestSkipPorcupine(t *testing.T) {
	h := newHist("c1", "c2").acquire(0, ms(0), ms(5), 0).acquire(1, ms(0), ms(5), 0).build()
	v := Check(h, Options{SkipPorcupine: true})
	if v.Verdict != VerdictUnsafe || v.Linearizable != Unknown || v.ResourceLinearizable != Unknown {
		t.Errorf("got %+v", v)
	}
}

// When porcupine runs out of time the answer is Unknown, not a yes.
func TestPorcupineTimeoutIsUnknown(t *testing.T) {
	h := newHist("c1", "c2").acquire(0, ms(0), ms(1), 0).release(0, ms(2), ms(3)).acquire(1, ms(4), ms(5), 0).build()
	tr := extract(&h)
	m := mutexModel(tr)
	step := m.Step
	m.Step = func(s, in, out any) (bool, any) {
		time.Sleep(50 * time.Millisecond)
		return step(s, in, out)
	}
	if got := linearizable(m, mutexOps(tr), time.Millisecond); got != Unknown {
		t.Errorf("got %v, want unknown", got)
	}
}
