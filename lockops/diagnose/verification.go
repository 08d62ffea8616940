package diagnose

import (
	"errors"
	"fmt"
	"github.com/zkscope/zkscope/zkview/fourlw"
	"slices"
	"strings"

	"github.com/zkscope/zkscope/zkview"
)

// WhitelistLine is the zoo.cfg line that lets zkscope ask each server who
// is connected and watching.
const WhitelistLine = "4lw.commands.whitelist=srvr,mntr,cons,wchp,wchc,dump,conf,wchs"

// Verification says how far the servers confirmed a report's clients and
// watches, and, when they did not, why and how to fix it. It is the
// report's "verification" object and the table's footnote.
type Verification struct {
	// Asked is false when the servers were not asked (--no-verify).
	Asked bool `json:"asked"`
	// ClientsKnown: every member listed its connections (the client column).
	ClientsKnown bool `json:"clients_known"`
	// WatchesKnown: every member listed its watches (watch_observed).
	WatchesKnown bool `json:"watches_known"`
	// Refused maps a member to the four-letter words it refused (with no
	// AdminServer answering instead).
	Refused map[string][]string `json:"refused,omitempty"`
	// Note says in one sentence why clients or watches are unknown and the
	// line to add; "" when everything is known.
	Note string `json:"note,omitempty"`
}

// Complete reports whether clients and watches are all known.
func (v Verification) Complete() bool { return v.Asked && v.ClientsKnown && v.WatchesKnown }

// Verified summarises what e (nil: the servers were not asked) could tell
// about clients and watches. adminPort is the context's admin_port (0:
// none), named in the advice.
func Verified(e *zkview.Ensemble, adminPort int) Verification {
	if e == nil {
		return Verification{Note: "client and watch (✓/✗) not checked (--no-verify)"}
	}
	v := Verification{Asked: true, ClientsKnown: true, WatchesKnown: true}
	var down []string
	for _, m := range e.Members {
		if m.Err != nil {
			v.ClientsKnown, v.WatchesKnown = false, false
			down = append(down, m.Addr)
			continue
		}
		v.ClientsKnown = v.ClientsKnown && m.ConnsKnown
		v.WatchesKnown = v.WatchesKnown && m.WatchesKnown
		for _, w := range []string{"cons", "wchp", "dump"} {
			if err := m.Errs[w]; err != nil && errors.Is(err, fourlw.ErrWordRefused) {
				if v.Refused == nil {
					v.Refused = map[string][]string{}
				}
				v.Refused[m.Addr] = append(v.Refused[m.Addr], w)
			}
		}
	}
	if v.Complete() {
		return v
	}
	v.Note = verificationNote(v, down, adminPort)
	return v
}

func verificationNote(v Verification, down []string, adminPort int) string {
	var unknown []string
	if !v.ClientsKnown {
		unknown = append(unknown, "clients (-)")
	}
	if !v.WatchesKnown {
		unknown = append(unknown, "watches (?)")
	}
	what := strings.Join(unknown, " and ") + " unknown"
	var why []string
	if len(v.Refused) > 0 {
		members := make([]string, 0, len(v.Refused))
		for m := range v.Refused {
			members = append(members, m)
		}
		slices.Sort(members)
		why = append(why, fmt.Sprintf("%s refused the four-letter words %s", strings.Join(members, ", "), strings.Join(v.Refused[members[0]], ", ")))
	}
	if len(down) > 0 {
		why = append(why, strings.Join(down, ", ")+" did not answer")
	}
	fix := "add " + WhitelistLine + " to each server's zoo.cfg"
	if adminPort > 0 {
		fix += fmt.Sprintf(" (the AdminServer on port %d did not answer either)", adminPort)
	} else {
		fix += ", or set admin_port (the AdminServer's port) in the context"
	}
	if len(why) == 0 {
		return what
	}
	if len(v.Refused) == 0 {
		return what + ": " + strings.Join(why, "; ")
	}
	return fmt.Sprintf("%s: %s; %s", what, strings.Join(why, "; "), fix)
}
