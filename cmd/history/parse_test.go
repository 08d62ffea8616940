package history

import (
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops/history"
)

// TestParsePoint: the forms history's time flags take.
func TestParsePoint(t *testing.T) {
	now := time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)
	for s, want := range map[string]history.Point{
		"":                          {},
		"now":                       {Time: now},
		"10m":                       {Time: now.Add(-10 * time.Minute)},
		"-10m":                      {Time: now.Add(-10 * time.Minute)},
		"2h30m ago":                 {Time: now.Add(-150 * time.Minute)},
		"2026-11-22T03:12:07.5Z":    {Time: time.Date(2026, 11, 22, 3, 12, 7, 5e8, time.UTC)},
		"2026-11-22T05:12:07+02:00": {Time: time.Date(2026, 11, 22, 3, 12, 7, 0, time.UTC)},
		"2026-11-22 03:12:07":       {Time: time.Date(2026, 11, 22, 3, 12, 7, 0, time.UTC)},
		"03:12:07":                  {Time: time.Date(2026, 11, 23, 3, 12, 7, 0, time.UTC)},
		"03:12":                     {Time: time.Date(2026, 11, 23, 3, 12, 0, 0, time.UTC)},
		"0x1f00000042":              {Zxid: 0x1f00000042},
	} {
		got, err := parsePoint(s, now)
		if err != nil || !got.Time.Equal(want.Time) || got.Zxid != want.Zxid {
			t.Errorf("parsePoint(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{"yesterday", "0x", "0xzz", "25:00", "10"} {
		if _, err := parsePoint(s, now); err == nil {
			t.Errorf("parsePoint(%q) took it", s)
		}
	}
}
