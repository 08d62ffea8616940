package lockops

import (
	"strings"
	"testing"
)

func TestProblemSeverity(t *testing.T) {
	for k, want := range map[ProblemKind]Severity{
		ProblemDeadlock:          SeverityError,
		ProblemDeadOwner:         SeverityError,
		ProblemOrphan:            SeverityError,
		ProblemStrayChild:        SeverityError,
		ProblemHerd:              SeverityWarning,
		ProblemMixedLibraries:    SeverityWarning,
		ProblemMaxLeasesInferred: SeverityInfo,
		ProblemUnknownRecipe:     SeverityInfo,
		"not-a-kind":             SeverityWarning,
	} {
		if got := k.Severity(); got != want {
			t.Errorf("%s: severity %s, want %s", k, got, want)
		}
	}
	b := AppendProblemJSON(nil, &Problem{Kind: ProblemOrphan, Detail: "x"}, "/l")
	if !strings.Contains(string(b), `"severity":"error"`) {
		t.Errorf("problem JSON without its severity: %s", b)
	}
}
