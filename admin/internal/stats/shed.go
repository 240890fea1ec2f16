package stats

// shed makes room in a cache map of at most max entries before one more
// goes in: when full, a quarter of it goes, whichever entries the map
// yields first. A page's worth of reads is the cost of a wrong choice,
// and no order of use is kept per read.
func shed[K comparable, V any](m map[K]V, max int) {
	if len(m) < max {
		return
	}
	drop := max / 4
	for k := range m {
		if drop == 0 {
			return
		}
		delete(m, k)
		drop--
	}
}
