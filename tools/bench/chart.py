"""The benchmark's PNG chart: GFLOP/s of tra and each baseline per case and rank count, drawn
by gnuplot (Debian's gnuplot-nox) from a data file next to the PNG."""
import shutil
import subprocess

METHODS = [("tra", "tra"), ("scalapack", "ScaLAPACK p{g}gemm"), ("summa", "MPI+OpenBLAS SUMMA"),
           ("ceiling", "{g}gemm ceiling")]


def write_chart(rows, png, dtype="f64"):
    """rows: the benchmark's result rows, their matrix multiplies in `dtype`; returns the PNG
    path, or None without gnuplot."""
    if not shutil.which("gnuplot"):
        print("gnuplot not found (apt-get install gnuplot-nox): no chart")
        return None
    data = png.with_suffix(".dat")
    with open(data, "w") as f:
        f.write("case " + " ".join(m for m, _ in METHODS) + "\n")
        for r in rows:
            label = "%s/%dr" % (r["case"], r["ranks"]) + ("/t%d" % r["tile"] if r["tile"] else "")
            values = [r["methods"].get(m, {}).get("gflops") for m, _ in METHODS]
            f.write('"%s" ' % label + " ".join("%.2f" % v if v else "NaN" for v in values) + "\n")
    # gnuplot refuses a column without a single number (e.g. only the paper workflows ran, which
    # have no baselines), so such columns are left out of the plot.
    measured = [any(r["methods"].get(m, {}).get("gflops") for r in rows) for m, _ in METHODS]
    if not any(measured):
        print("nothing to chart")
        return None
    g = "s" if dtype == "f32" else "d"  # BLAS's letter for the element type
    plots = ", ".join("'%s' using %d:xtic(1) title '%s'" % (data, i + 2, title.format(g=g))
                      for i, (_, title) in enumerate(METHODS) if measured[i])
    script = "\n".join([
        "set terminal pngcairo size 1400,600 noenhanced" if _has_cairo() else
        "set terminal png size 1400,600 noenhanced",
        "set output '%s'" % png,
        "set style data histogram", "set style histogram cluster gap 1",
        "set style fill solid border -1", "set ylabel 'GFLOP/s (median, %s)'" % dtype,
        "set yrange [0:*]",  # bars from zero: an axis from 125 made 3% look like a third
        "set xtics rotate by -30", "set key outside top", "set grid ytics",
        "plot " + plots, ""])
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    return png


def _has_cairo():
    out = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
    return "pngcairo" in out.stdout + out.stderr
