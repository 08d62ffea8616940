package scan

import (
	"context"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// election notes d, read by the walk, when it is a system's election whose
// context lies elsewhere (Kafka's brokers, HBase's backup masters, Solr's
// overseer leader node), to be read after the walk; below says the walk
// goes on under d (a Kafka or HBase root holds more than the election).
func (s *scanner) election(d *zkview.WalkDir) (noted, below bool) {
	switch lockops.FamilyOf(d.Names) {
	case lockops.KindKafkaController, lockops.KindHBaseMaster:
		s.elections = append(s.elections, dirOf(d))
		return true, true
	}
	if cen := lockops.CensusOfNames(d.Names); lockops.SolrLeaderOf(d.Path) != "" && cen.Dominant() == lockops.Solr {
		s.elections = append(s.elections, dirOf(d))
		return true, false
	}
	return false, false
}

// readElections reads the context of the elections the walk met and
// decodes them.
func (s *scanner) readElections(ctx context.Context) error {
	for _, d := range s.elections {
		d, err := withElectionContext(ctx, s.c, d)
		if err = s.leaveOut(d.Path, err); err != nil {
			return err
		}
		s.add(lockops.Decode(d, lockops.DecodeOptions{}))
	}
	return nil
}

// withElectionContext adds to d, an election's directory as read, the
// nodes its decoder reads elsewhere (Dir.Context).
func withElectionContext(ctx context.Context, c *zkview.Client, d lockops.Dir) (lockops.Dir, error) {
	var at string
	switch lockops.FamilyOfChildren(d.Children) {
	case lockops.KindKafkaController:
		at = lockops.KafkaBrokersOf(d.Path)
	case lockops.KindHBaseMaster:
		at = lockops.JoinPath(d.Path, lockops.HBaseBackupsDir)
	default:
		leader := lockops.SolrLeaderOf(d.Path)
		if leader == "" {
			return d, nil
		}
		d.Context = []lockops.Child{}
		n, err := c.Get(leader)
		if err != nil {
			return d, IgnoreGone(err)
		}
		d.Context = append(d.Context, lockops.ChildOf(lockops.SolrLeaderNode, leader, &n.Stat, n.Data))
		return d, nil
	}
	kids, err := readDir(ctx, c, at)
	if err != nil {
		return d, IgnoreGone(err)
	}
	d.Context = kids.Children
	return d, nil
}
