#!/usr/bin/env python3
"""Draw benches/results.svg from benches/results.json (standard library only).

Two panels against cluster size (nodes, log scale): decision throughput (pods/s) and decision
latency p50/p99 (µs), each for the default profile and the topology variant (PodTopologySpread +
InterPodAffinity in play). End-to-end throughput is drawn as points on the throughput panel.

    python3 benches/plot.py [results.json] [out.svg]
    python3 benches/plot.py --markdown [results.json]   # the tables of BENCHMARKS.md
"""

import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MARKDOWN = "--markdown" in sys.argv[1:]
ARGS = [a for a in sys.argv[1:] if a != "--markdown"]
SRC = ARGS[0] if len(ARGS) > 0 else os.path.join(HERE, "results.json")
OUT = ARGS[1] if len(ARGS) > 1 else os.path.join(HERE, "results.svg")

COLORS = {"default": "#1f77b4", "topology": "#d62728", "e2e": "#2ca02c"}
W, H = 980, 430
PANEL_W, PANEL_H = 400, 300
MARGIN_L, MARGIN_T = 70, 60


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def nice_ticks(lo, hi):
    """Decades (1, 2, 5 × 10^k) covering [lo, hi] on a log axis."""
    ticks = []
    k = math.floor(math.log10(lo))
    while 10 ** k <= hi * 1.0001:
        for m in (1, 2, 5):
            v = m * 10 ** k
            if lo * 0.9999 <= v <= hi * 1.0001:
                ticks.append(v)
        k += 1
    return ticks


def fmt(v):
    if v >= 1000:
        return f"{v / 1000:g}k"
    return f"{v:g}"


class Panel:
    def __init__(self, x0, y0, title, ylabel, xs, ys):
        self.x0, self.y0 = x0, y0
        self.title, self.ylabel = title, ylabel
        self.xlo, self.xhi = min(xs) / 1.4, max(xs) * 1.4
        self.ylo = 10 ** math.floor(math.log10(max(min(ys), 1e-9)))
        self.yhi = 10 ** math.ceil(math.log10(max(ys)))
        if self.yhi <= self.ylo:
            self.yhi = self.ylo * 10
        self.parts = []

    def px(self, x):
        f = (math.log10(x) - math.log10(self.xlo)) / (math.log10(self.xhi) - math.log10(self.xlo))
        return self.x0 + f * PANEL_W

    def py(self, y):
        y = max(y, self.ylo)
        f = (math.log10(y) - math.log10(self.ylo)) / (math.log10(self.yhi) - math.log10(self.ylo))
        return self.y0 + PANEL_H - f * PANEL_H

    def frame(self, xticks):
        p = self.parts
        p.append(f'<rect x="{self.x0}" y="{self.y0}" width="{PANEL_W}" height="{PANEL_H}" fill="#fff" stroke="#444"/>')
        p.append(f'<text x="{self.x0 + PANEL_W / 2}" y="{self.y0 - 12}" text-anchor="middle" font-weight="bold">{esc(self.title)}</text>')
        for t in nice_ticks(self.ylo, self.yhi):
            y = self.py(t)
            p.append(f'<line x1="{self.x0}" x2="{self.x0 + PANEL_W}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
            p.append(f'<text x="{self.x0 - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{fmt(t)}</text>')
        for t in xticks:
            x = self.px(t)
            p.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{self.y0}" y2="{self.y0 + PANEL_H}" stroke="#eee"/>')
            p.append(f'<text x="{x:.1f}" y="{self.y0 + PANEL_H + 16}" text-anchor="middle" font-size="11">{fmt(t)}</text>')
        p.append(f'<text x="{self.x0 + PANEL_W / 2}" y="{self.y0 + PANEL_H + 34}" text-anchor="middle" font-size="12">nodes (log scale)</text>')
        cx, cy = self.x0 - 52, self.y0 + PANEL_H / 2
        p.append(f'<text x="{cx}" y="{cy}" text-anchor="middle" font-size="12" transform="rotate(-90 {cx} {cy})">{esc(self.ylabel)}</text>')

    def line(self, pts, color, dash="", label=None, marker="circle"):
        pts = sorted(pts)
        if not pts:
            return
        d = " ".join(f"{self.px(x):.1f},{self.py(y):.1f}" for x, y in pts)
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        if len(pts) > 1:
            self.parts.append(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="2"{extra}/>')
        for x, y in pts:
            if marker == "square":
                self.parts.append(f'<rect x="{self.px(x) - 4:.1f}" y="{self.py(y) - 4:.1f}" width="8" height="8" fill="{color}"><title>{fmt(x)} nodes: {y:.0f}</title></rect>')
            else:
                self.parts.append(f'<circle cx="{self.px(x):.1f}" cy="{self.py(y):.1f}" r="3.5" fill="{color}"><title>{fmt(x)} nodes: {y:.1f}</title></circle>')

    def hline(self, y, label):
        if not (self.ylo <= y <= self.yhi):
            return
        yy = self.py(y)
        self.parts.append(f'<line x1="{self.x0}" x2="{self.x0 + PANEL_W}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#888" stroke-dasharray="2,3"/>')
        self.parts.append(f'<text x="{self.x0 + PANEL_W - 4}" y="{yy - 4:.1f}" text-anchor="end" font-size="10" fill="#555">{esc(label)}</text>')

    def legend(self, items, bottom=False):
        y = self.y0 + PANEL_H - 8 - 15 * (len(items) - 1) if bottom else self.y0 + 14
        for color, dash, label in items:
            x = self.x0 + 10
            extra = f' stroke-dasharray="{dash}"' if dash else ""
            self.parts.append(f'<line x1="{x}" x2="{x + 22}" y1="{y - 4}" y2="{y - 4}" stroke="{color}" stroke-width="2"{extra}/>')
            self.parts.append(f'<text x="{x + 28}" y="{y}" font-size="11">{esc(label)}</text>')
            y += 15


def markdown(res):
    """Print the BENCHMARKS.md tables."""
    dec = res.get("decision", [])
    print("| variant | nodes | existing pods | pods/s (CPU) | pods/s (wall) | p50 µs | p99 µs | p99 µs (wall) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in dec:
        print(f"| {r['variant']} | {r['nodes']:,} | {r['existing_pods']:,} | {r['pods_per_sec']:,.0f} | "
              f"{r.get('pods_per_sec_wall', 0):,.0f} | {r['p50_us']:.1f} | {r['p99_us']:.1f} | {r.get('p99_wall_us', 0):.1f} |")
    print()
    print("| variant | nodes | nodes evaluated | nodes scored | µs per pod (CPU) | ns per scored node |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in dec:
        print(f"| {r['variant']} | {r['nodes']:,} | {r['nodes_evaluated']:,.0f} | {r['nodes_scored']:,.0f} | "
              f"{1e6 / r['pods_per_sec']:.1f} | {r['ns_per_scored_node']:,.0f} |")
    print()
    print("| nodes | pods | qps/burst | pods/s | seconds |")
    print("|---:|---:|---|---:|---:|")
    for r in res.get("e2e", []):
        print(f"| {r['nodes']:,} | {r['pods']:,} | {r['qps_burst']} | {r['pods_per_sec']:,.0f} | {r['seconds']:.2f} |")
    print()
    fp = res.get("footprint", {})
    print("| case | nodes | pods | ready s | CPU s to ready | RSS MiB | peak RSS MiB | anon MiB | file MiB | threads |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in fp.get("cases", []):
        print(f"| {r['case']} | {r['nodes']:,} | {r['pods']:,} | {r['ready_s']:.2f} | {r['ready_cpu_s']:.2f} | "
              f"{r['rss_kib'] / 1024:.1f} | {r['peak_rss_kib'] / 1024:.1f} | {r.get('rss_anon_kib', 0) / 1024:.1f} | "
              f"{r.get('rss_file_kib', 0) / 1024:.1f} | {r['threads']} |")
    print()
    print(f"bytes per node: {fp.get('bytes_per_node')}, bytes per pod: {fp.get('bytes_per_pod')}, "
          f"binary: {fp.get('binary_bytes')} bytes ({res.get('binary')})")


def main():
    with open(SRC) as f:
        res = json.load(f)
    if MARKDOWN:
        markdown(res)
        return
    dec = res.get("decision", [])
    e2e = [r for r in res.get("e2e", []) if "default" not in r.get("qps_burst", "")]
    if not dec:
        sys.exit(f"{SRC}: no decision results")
    sizes = sorted({r["nodes"] for r in dec})
    series = {v: sorted((r for r in dec if r["variant"] == v), key=lambda r: r["nodes"]) for v in ("default", "topology")}

    tput_vals = [r["pods_per_sec"] for r in dec] + [r["pods_per_sec"] for r in e2e]
    left = Panel(MARGIN_L, MARGIN_T, "Throughput", "pods / second", sizes, tput_vals)
    left.frame(sizes)
    left.hline(10000, "decision target 10k/s")
    left.hline(3000, "e2e target 3k/s")
    for v, rows in series.items():
        left.line([(r["nodes"], r["pods_per_sec"]) for r in rows], COLORS[v])
    left.line([(r["nodes"], r["pods_per_sec"]) for r in e2e], COLORS["e2e"], marker="square")
    left.legend([
        (COLORS["default"], "", "decision, default profile"),
        (COLORS["topology"], "", "decision, spread + affinity"),
        (COLORS["e2e"], "", "end to end (test API server)"),
    ], bottom=True)

    lat_vals = [r["p50_us"] for r in dec] + [r["p99_us"] for r in dec]
    right = Panel(MARGIN_L + PANEL_W + 110, MARGIN_T, "Decision latency per pod", "microseconds", sizes, lat_vals)
    right.frame(sizes)
    right.hline(1000, "p99 target 1 ms")
    for v, rows in series.items():
        right.line([(r["nodes"], r["p50_us"]) for r in rows], COLORS[v])
        right.line([(r["nodes"], r["p99_us"]) for r in rows], COLORS[v], dash="5,4")
    right.legend([
        (COLORS["default"], "", "p50 default"),
        (COLORS["default"], "5,4", "p99 default"),
        (COLORS["topology"], "", "p50 spread + affinity"),
        (COLORS["topology"], "5,4", "p99 spread + affinity"),
    ])

    machine = res.get("machine", {})
    sub = f"edgesched benchmarks — {machine.get('cpu', '?')}, {machine.get('cpus', '?')} CPUs shared with other builds; 10 existing pods per node"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="#fafafa"/>',
        f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="13">{esc(sub)}</text>',
    ]
    out += left.parts + right.parts
    out.append("</svg>")
    with open(OUT, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
