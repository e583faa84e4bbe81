package cpu

// Shadow is where an object the model annotates often (an event, a
// context) keeps the places of its fields' shadow cells, so that the
// data-race oracle finds a field's cell without hashing the object and the
// field's name: as SyncClock does for a sync object's clock, and as KCSAN
// finds a watchpoint from the access's address alone. The object embeds
// one and RaceDetector.ShadowOf returns a pointer to it. The places are
// checked against the detector and the Shadow's own address: one filled
// in by another run's detector, or a copy of the object, has no cells yet.
// A field past the first shadowFields of an object has its cell in the
// detector's map. The zero value is empty.
type Shadow struct {
	gen   uint64  // the detector whose cells these are (0: none)
	self  *Shadow // where it was filled in
	n     int32
	cells [shadowFields]shadowRef
}

// shadowFields is how many fields a Shadow places: the most any annotated
// object has (an event's state, oncpu, tstamp, pending_disable and
// pending_work), and one spare.
const shadowFields = 6

// shadowRef is one field's cell: its offset in raceState.cells.
type shadowRef struct {
	field string
	i     int32
}

// cellFor returns the offset of f's field's shadow cell, made on first use:
// through the object's Shadow when it has one, else the detector's map.
func (d *RaceDetector) cellFor(f Footprint, ncpu int) int32 {
	if d.ShadowOf == nil {
		return d.cellOf(shadowKey{f.Obj, f.Field}, ncpu)
	}
	s := d.ShadowOf(f.Obj)
	if s == nil {
		return d.cellOf(shadowKey{f.Obj, f.Field}, ncpu)
	}
	if s.gen != d.gen || s.self != s {
		s.gen, s.self, s.n = d.gen, s, 0
	}
	for k := range s.n {
		if r := &s.cells[k]; r.field == f.Field {
			return r.i
		}
	}
	if int(s.n) == len(s.cells) {
		return d.cellOf(shadowKey{f.Obj, f.Field}, ncpu)
	}
	i := grow(&d.cells, 4*ncpu)
	s.cells[s.n] = shadowRef{f.Field, i}
	s.n++
	return i
}
