package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func sweepCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	var o runOptions
	o.register(fs)
	rates := fs.String("rates", "", "comma-separated request rates (default: --steps fractions of --max-rate)")
	maxRate := fs.Float64("max-rate", 0, "highest rate; 0 = measure it first with a closed-loop run of --duration")
	steps := fs.Int("steps", 8, "number of rates from max-rate/steps to max-rate")
	svgOut := fs.String("svg", "sweep.svg", "chart to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := o.prepare(); err != nil {
		return err
	}
	list, err := parseRates(*rates)
	if err != nil {
		return err
	}
	out := &runFile{}
	if len(list) == 0 {
		top := *maxRate
		if top <= 0 {
			cfg := o.load
			cfg.Rate = 0
			r, err := measure(ctx, &o, o.name+" (max)", "kurz "+cfg.Addr, &cfg, o.pid, nil, nil)
			if err != nil {
				return err
			}
			r.writeTable(stdout)
			out.Runs = append(out.Runs, r)
			top = r.Throughput
		}
		for i := 1; i <= *steps; i++ {
			list = append(list, top*float64(i)/float64(*steps))
		}
	}
	var points []sweepPoint
	for _, rate := range list {
		cfg := o.load
		cfg.Rate = rate
		r, err := measure(ctx, &o, fmt.Sprintf("%s @%s/s", o.name, human(rate)), "kurz "+cfg.Addr, &cfg, o.pid, nil, nil)
		if err != nil {
			return err
		}
		r.writeTable(stdout)
		out.Runs = append(out.Runs, r)
		if r.Latency != nil {
			points = append(points, sweepPoint{Rate: rate, Throughput: r.Throughput, P50: r.Latency.P50, P99: r.Latency.P99, P999: r.Latency.P999})
		}
	}
	f, err := os.Create(*svgOut)
	if err != nil {
		return fmt.Errorf("create svg: %w", err)
	}
	if err := writeSweepSVG(f, o.name, points); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close svg: %w", err)
	}
	fmt.Fprintf(stdout, "chart: %s\n", *svgOut)
	if o.jsonOut != "" {
		return writeJSON(o.jsonOut, out)
	}
	return nil
}

func parseRates(s string) ([]float64, error) {
	var out []float64
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v <= 0 {
			return nil, errors.New("--rates: want positive numbers")
		}
		out = append(out, v)
	}
	return out, nil
}
