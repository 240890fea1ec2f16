package clicks

import (
	"errors"
	"time"

	"kurz/shared/click"
)

// spoolOverflow is the spooler goroutine: it enriches the hits that found
// the queue full and appends them to the open overflow segment, off the
// request path. It seals the segment every FlushInterval so that the
// replayer can send it.
func (p *Pipeline) spoolOverflow() {
	defer p.wg.Done()
	o := &overflowWriter{s: p.spool, maxRows: p.cfg.BatchSize}
	tick := time.NewTicker(p.cfg.FlushInterval)
	defer tick.Stop()
	for {
		select {
		case h := <-p.overflow:
			p.spoolHit(o, &h)
		case <-tick.C:
			p.sealOverflow(o)
		case <-p.stop:
			for {
				select {
				case h := <-p.overflow:
					p.spoolHit(o, &h)
				default:
					p.sealOverflow(o)
					return
				}
			}
		}
	}
}

func (p *Pipeline) spoolHit(o *overflowWriter, h *click.Hit) {
	r := p.enr.Enrich(h)
	err := o.add(&r)
	switch {
	case err == nil:
		p.m.spooled.Add(1)
	case errors.Is(err, errSpoolFull):
		p.m.dropped.Add(1)
		p.m.spoolFull.Add(1)
	default:
		p.m.dropped.Add(1)
		p.log.Error("click spool: overflow click lost", "err", err)
	}
	if o.f == nil { // add sealed the segment
		p.poke()
	}
}

func (p *Pipeline) sealOverflow(o *overflowWriter) {
	if o.f == nil {
		return
	}
	if err := o.seal(); err != nil {
		p.log.Error("click spool: sealing overflow segment", "err", err)
	}
	p.poke()
}
