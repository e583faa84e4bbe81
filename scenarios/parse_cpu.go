package scenarios

import "strings"

// cpuRef parses "cpu2" or "cpu 2" at ws[i] and returns the index after it.
func (p *parser) cpuRef(ll *logicalLine, ws []token, i int) (cpu int, pos Pos, next int, ok bool) {
	if i < len(ws) && ws[i].text == "cpu" && i+1 < len(ws) {
		if c, ok := ParseCPUNumber(ws[i+1].text); ok && !strings.HasPrefix(ws[i+1].text, "cpu") {
			return c, ws[i].pos, i + 2, true
		}
		p.errorf(ws[i+1].pos, "expected a CPU number after cpu, found %s", quote(ws[i+1].text))
		return 0, Pos{}, i, false
	}
	if i < len(ws) && strings.HasPrefix(ws[i].text, "cpu") {
		if c, ok := ParseCPUNumber(ws[i].text); ok {
			return c, ws[i].pos, i + 1, true
		}
	}
	p.errorf(at(ll, ws, i), "expected a CPU like cpu0 or cpu 2, found %s", found(ws, i))
	return 0, Pos{}, i, false
}

// cpuSet parses "cpu2", "cpu 2" or "cpus 0-3,5" at ws[i].
func (p *parser) cpuSet(ll *logicalLine, ws []token, i int) (*CPUSet, int, bool) {
	if i < len(ws) && ws[i].text == "cpus" {
		if i+1 >= len(ws) {
			p.errorf(endPos(ll, ws), "expected a CPU list like 0-3,5 after cpus")
			return nil, i, false
		}
		list, ok := parseCPUList(ws[i+1].text)
		if !ok {
			p.errorf(ws[i+1].pos, "expected a CPU list like 0-3,5 after cpus, found %s", quote(ws[i+1].text))
			return nil, i, false
		}
		return &CPUSet{Pos: ws[i].pos, CPUs: list}, i + 2, true
	}
	c, pos, next, ok := p.cpuRef(ll, ws, i)
	if !ok {
		return nil, i, false
	}
	return &CPUSet{Pos: pos, CPUs: []int{c}}, next, true
}
