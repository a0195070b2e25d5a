package web

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/stats"
)

// chart is a horizontal bar chart laid out on the server; the template
// draws it as inline SVG, escaping every label.
type chart struct {
	Title         string
	Width, Height int
	LabelWidth    int // left of the bars
	Bars          []bar
	Empty         string // shown instead when there are no bars
}

type bar struct {
	Label, Value string
	Href         string // where the label links, "" for none
	Y, W, H      int    // geometry of the bar
	TextY        int    // baseline of its label and value
	ValueX       int    // where its value is written
	Secondary    bool   // drawn in the second colour (p95 beside p50)
}

// Chart geometry, in SVG user units.
const (
	chartWidth = 640
	labelWidth = 220
	valueWidth = 90
	barHeight  = 16
	barGap     = 6
)

// newChart lays out one bar per value, scaled to the largest.
func newChart(title, empty string, labels, values, hrefs []string, amounts []float64, secondary []bool) chart {
	c := chart{Title: title, Width: chartWidth, LabelWidth: labelWidth, Empty: empty}
	maxV := 0.0
	for _, a := range amounts {
		maxV = max(maxV, a)
	}
	span := chartWidth - labelWidth - valueWidth
	for i, a := range amounts {
		w := 0
		if maxV > 0 {
			w = max(int(a/maxV*float64(span)), 1)
		}
		y := i * (barHeight + barGap)
		b := bar{Label: labels[i], Value: values[i], Y: y, W: w, H: barHeight, TextY: y + barHeight - 4, ValueX: labelWidth + w + 6}
		if hrefs != nil {
			b.Href = hrefs[i]
		}
		if secondary != nil {
			b.Secondary = secondary[i]
		}
		c.Bars = append(c.Bars, b)
	}
	c.Height = max(len(amounts)*(barHeight+barGap), barHeight)
	return c
}

// maxSessionBars keeps the tokens chart readable on a big archive.
const maxSessionBars = 20

// tokensChart shows the sessions that received the most tokens.
func tokensChart(rep stats.Report) chart {
	rows := slices.Clone(rep.PerSession)
	rows = slices.DeleteFunc(rows, func(r stats.SessionRow) bool { return r.TokensInjected == 0 })
	slices.SortStableFunc(rows, func(a, b stats.SessionRow) int { return cmp.Compare(b.TokensInjected, a.TokensInjected) })
	var labels, values, hrefs []string
	var amounts []float64
	for _, p := range rows[:min(len(rows), maxSessionBars)] {
		label := carryover.ShortID(p.ID)
		if p.Title != "" {
			label += " " + clip(22, p.Title)
		}
		labels = append(labels, label)
		values = append(values, fmt.Sprintf("%d tok", p.TokensInjected))
		hrefs = append(hrefs, "/session/"+url.PathEscape(p.ID))
		amounts = append(amounts, float64(p.TokensInjected))
	}
	return newChart("Tokens injected per session", "nothing injected yet", labels, values, hrefs, amounts, nil)
}

// latencyChart shows each hook event's p50 and p95 latency.
func latencyChart(rep stats.Report) chart {
	var labels, values []string
	var amounts []float64
	var second []bool
	for _, h := range rep.Hooks {
		for i, ms := range []float64{h.LatencyMS.P50, h.LatencyMS.P95} {
			name := "p50"
			if i == 1 {
				name = "p95"
			}
			labels = append(labels, h.Event+" "+name)
			values = append(values, fmt.Sprintf("%.1f ms", ms))
			amounts = append(amounts, ms)
			second = append(second, i == 1)
		}
	}
	return newChart("Hook latency per event (p50, p95)", "no hook runs recorded yet", labels, values, nil, amounts, second)
}

type statsView struct {
	Report  stats.Report
	Tokens  chart
	Latency chart
}
