package lockops

import "testing"

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
}
