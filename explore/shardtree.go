package explore

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// A shard of a seeded search (random, sparse, pct) keeps the tree of the
// schedules it ran (memo.go) as one search does, but of its range of seeds
// only: a schedule another shard ran is new to it, and no shard alone may
// hold every schedule of the scenario. So a shard writes its tree into its
// JSON (schedule_tree): every question's number of options and which of
// them its runs took, and every distinct schedule's first number (in the
// whole search: shards number their schedules as the unsharded search
// does). Merge unions the trees and replays, schedule number by schedule
// number, what the unsharded search's one tree would have done: the
// schedules that repeat one run before them, where the tree stops paying
// and is dropped (maybeDrop), and when it holds every schedule of the
// scenario (claim): the merged repeats, distinct schedules and exhaustive
// claim are the unsharded search's.
//
// The encoding: a stream of unsigned varints, preorder. A question node
// is n+1 (n >= 1 options), then its n answers' subtrees in answer order;
// an answer no run took is 0; a schedule (a leaf) is 1 and its first
// schedule number. base64 (standard, unpadded), after memoTreePrefix.

const memoTreePrefix = "t1."

// encode returns the tree as schedule_tree, or "" when it is not kept (it
// was dropped, or never kept).
func (t *schedMemo) encode() string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.off || t.root == nil {
		return ""
	}
	var buf []byte
	var walk func(n *memoNode)
	walk = func(n *memoNode) {
		switch {
		case n == nil:
			buf = binary.AppendUvarint(buf, 0)
		case n.leaf != nil:
			buf = binary.AppendUvarint(buf, 1)
			buf = binary.AppendUvarint(buf, uint64(n.leaf.first))
		default:
			buf = binary.AppendUvarint(buf, uint64(n.n)+1)
			for i := range n.n {
				var k *memoNode
				if i < len(n.kids) {
					k = n.kids[i]
				}
				walk(k)
			}
		}
	}
	walk(t.root)
	return memoTreePrefix + base64.RawStdEncoding.EncodeToString(buf)
}

// unionNode is a node of the union of the shards' trees: a question (n
// options, kids by answer) or a schedule (leaf). first is the schedule
// number the unsharded search would add it at: a leaf's first schedule,
// a question's the least of its subtree's.
type unionNode struct {
	n     int
	leaf  bool
	first int
	kids  []*unionNode
}

// unionTree decodes schedule_tree s into the union at *at.
func unionTree(at **unionNode, s string) error {
	if !strings.HasPrefix(s, memoTreePrefix) {
		return fmt.Errorf("schedule_tree: expected it to start with %q", memoTreePrefix)
	}
	raw, err := base64.RawStdEncoding.DecodeString(s[len(memoTreePrefix):])
	if err != nil {
		return fmt.Errorf("schedule_tree: %v", err)
	}
	next := func() (int, error) {
		v, k := binary.Uvarint(raw)
		if k <= 0 || v > 1<<40 {
			return 0, errors.New("schedule_tree: cut short or corrupt")
		}
		raw = raw[k:]
		return int(v), nil
	}
	var walk func(at **unionNode) error
	walk = func(at **unionNode) error {
		tag, err := next()
		if err != nil {
			return err
		}
		switch tag {
		case 0:
			return nil
		case 1:
			first, err := next()
			if err != nil {
				return err
			}
			if first < 1 {
				return errors.New("schedule_tree: a schedule numbered 0")
			}
			n := *at
			switch {
			case n == nil:
				*at = &unionNode{leaf: true, first: first}
			case !n.leaf:
				return errors.New("schedule_tree: the shards' trees disagree (a schedule in one is a question in another)")
			default:
				n.first = min(n.first, first)
			}
			return nil
		}
		n := *at
		switch {
		case n == nil:
			n = &unionNode{n: tag - 1, kids: make([]*unionNode, tag-1)}
			*at = n
		case n.leaf || n.n != tag-1:
			return errors.New("schedule_tree: the shards' trees disagree (a question's options differ)")
		}
		for i := range n.kids {
			if err := walk(&n.kids[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(at); err != nil {
		return err
	}
	if len(raw) != 0 {
		return errors.New("schedule_tree: trailing bytes")
	}
	return nil
}

// memoReplay is what the unsharded search's tree did over schedules
// 1..last: the repeats it counted, and whether (and with how many distinct
// schedules) it claimed to hold every schedule of the scenario.
type memoReplay struct {
	repeats  int
	claimed  bool
	distinct int
}

// replayMemo replays the unsharded search's tree over schedules 1..last,
// given the union of the trees of shards that ran every one of them.
func replayMemo(root *unionNode, last int) memoReplay {
	// The changes to the tree (memo.add) at each schedule that added a
	// new one: questions made and their options, answers taken, leaves.
	type change struct{ nodes, open, leaves int }
	at := map[int]*change{}
	get := func(s int) *change {
		c := at[s]
		if c == nil {
			c = &change{}
			at[s] = c
		}
		return c
	}
	var walk func(n *unionNode) int
	walk = func(n *unionNode) int {
		if n.leaf {
			get(n.first).leaves++
			return n.first
		}
		first := 0
		for _, k := range n.kids {
			if k == nil {
				continue
			}
			f := walk(k)
			get(f).open-- // the answer taken, by the schedule that made k
			if first == 0 || f < first {
				first = f
			}
		}
		c := get(first)
		c.nodes++
		c.open += n.n
		n.first = first
		return first
	}
	if root != nil {
		walk(root)
	}
	var when []int
	for s := range at {
		if s <= last {
			when = append(when, s)
		}
	}
	sort.Ints(when)
	var out memoReplay
	nodes, open, leaves := 0, 0, 0
	// dropped reports whether maybeDrop drops the tree after schedule s.
	dropped := func(s int) bool {
		return nodes > memoMaxNodes || (s >= memoProbation && (s-leaves)*8 < s)
	}
	prev := 0 // schedules replayed so far
	for _, s := range append(when, last+1) {
		// Schedules prev+1..s-1 change nothing: each repeats one before.
		// The probation test (repeats*8 < runs) only gets easier to pass
		// as they go, so the first of them is the one to look at.
		if lo := max(prev+1, memoProbation); lo < s && dropped(lo) {
			out.repeats = lo - leaves
			return out
		}
		if s > last {
			break
		}
		c := at[s]
		nodes, open, leaves = nodes+c.nodes, open+c.open, leaves+c.leaves
		if dropped(s) {
			out.repeats = s - leaves
			return out
		}
		if open == 0 && !out.claimed {
			out.claimed, out.distinct = true, leaves
		}
		prev = s
	}
	out.repeats = last - leaves
	return out
}
