"""When a growth verdict contradicts itself, checked from a report's JSON
alone, as report/growth_fit.h states the rule, and apart from
report/growth_fit.c's code (this file reimplements the rule from the
header's words; the fields it reads are the JSON report's `fit` objects):

- the exponent k at the large end has its 95% interval [lo, hi];
- a model M is *allowed* by k when its own exponent over the sizes the
  exponent was measured on (0 for 1, 1/ln n for log n, 1 for n,
  1 + 1/ln n for n log n, 2 for n^2, 3 for n^3), or its fitted curve's
  slope there where lower, is at most SLACK_BELOW above hi; its own
  exponent (or its curve's slope where higher, when the model fits within
  OFFSET_FIT: an offset of the sizes steepens it) is at most SLACK_ABOVE
  below lo; and its curve's slope is within LEADING_SLACK under its own
  exponent (the leading term shows);
- a verdict that names a model ("n^2", "n^2?") must name an allowed one;
- a power law ("~n^1.5", "~n^1.5?") may be given only where no allowed
  model fits within POOR_ERROR, and its text must be k;
- a verdict without '?' must fit: its model within POOR_ERROR, k's
  interval no wider than POOR_WIDTH (POWER_WIDTH for a power law).

A verdict breaking any of these *disagrees* with its exponent: what the
issue showed as `log n 1.51±0.05` or `n^3 4.06±3.87` with no '?'."""
import math

SLACK_BELOW = 0.10
SLACK_ABOVE = 0.05
OFFSET_FIT = 0.05
LEADING_SLACK = 0.25
POOR_ERROR = 0.10
POWER_WIDTH = 0.5
POOR_WIDTH = 1.0
OWN_POWER = {"1": 0, "log n": 0, "n": 1, "n log n": 1, "n^2": 2, "n^3": 3}


def own_exponents(model, lo_n, hi_n):
    """The exponents MODEL shows between sizes LO_N and HI_N (a range for
    the models with a logarithm: d log f / d log n)."""
    e = OWN_POWER[model]
    if model in ("log n", "n log n"):
        return e + 1 / math.log(max(hi_n, math.e)), e + 1 / math.log(max(lo_n, math.e))
    return e, e


def allowed(fit, model):
    own_lo, own_hi = own_exponents(model, fit["exponent_from"], fit["window"][1])
    slope = fit["models"][model]["slope"]
    low = min(own_lo, slope)
    high = max(own_hi, slope) if fit["models"][model]["error"] <= OFFSET_FIT else own_hi
    ci_lo, ci_hi = fit["exponent_ci"]
    return (low - SLACK_BELOW <= ci_hi and high + SLACK_ABOVE >= ci_lo
            and slope >= own_lo - LEADING_SLACK)


def disagreements(fit):
    """What is contradictory in FIT (a JSON `fit` object); [] when nothing."""
    if not fit["verdict"]:
        return []
    text, problems = fit["growth"], []
    k, (ci_lo, ci_hi) = fit["exponent"], fit["exponent_ci"]
    poor = text.endswith("?")
    if poor != fit["poor"] or poor != (fit["kind"] == "poor"):
        problems.append(f"'{text}' is kind {fit['kind']}, poor {fit['poor']}")
    if text.startswith("~"):
        if text.rstrip("?") != f"~n^{k:.2g}":
            problems.append(f"'{text}' is not its exponent {k:.3f}")
        fitting = [m for m in OWN_POWER if allowed(fit, m) and fit["models"][m]["error"] <= POOR_ERROR]
        if fitting:
            problems.append(f"'{text}' although k = {k:.2f} [{ci_lo:.2f}, {ci_hi:.2f}] allows "
                            f"{fitting}, which fit")
        if not poor and not ci_hi - ci_lo <= POWER_WIDTH:
            problems.append(f"'{text}' without '?' on an interval {ci_hi - ci_lo:.2f} wide")
    else:
        model = text.rstrip("?")
        if model != fit["model"]:
            problems.append(f"'{text}' names {fit['model']}")
        elif not allowed(fit, model):
            problems.append(f"'{text}' with k = {k:.2f} [{ci_lo:.2f}, {ci_hi:.2f}], which does "
                            f"not allow {model} (own exponents "
                            f"{own_exponents(model, fit['exponent_from'], fit['window'][1])}, "
                            f"curve slope {fit['models'][model]['slope']:.2f})")
        elif not poor and not (fit["models"][model]["error"] <= POOR_ERROR and
                               ci_hi - ci_lo <= POOR_WIDTH):
            problems.append(f"'{text}' without '?': error {fit['models'][model]['error']:.3f}, "
                            f"interval {ci_hi - ci_lo:.2f} wide")
    return problems


def report_disagreements(report):
    """Every contradictory verdict of a JSON report, as text."""
    found = []
    for row in report["routines"]:
        for metric in ("rms", "trms"):
            for kind in ("worst", "average"):
                for problem in disagreements(row["fit"][metric][kind]):
                    found.append(f"{row['name']} (thread {row['thread']}) {kind} by {metric}: "
                                 f"{problem}")
    return found


def self_test():
    """The rule catches what the issue showed; raises AssertionError if not."""
    def fit(growth, model, kind, k, ci, errors, slopes, window=(100, 10000), exponent_from=1000):
        return {"verdict": True, "growth": growth, "model": model, "kind": kind,
                "poor": growth.endswith("?"), "exponent": k, "exponent_ci": list(ci),
                "exponent_from": exponent_from, "window": list(window),
                "models": {m: {"error": errors.get(m, 0.5), "slope": slopes.get(m, 0.0)}
                           for m in OWN_POWER}}
    sane = fit("n^2", "n^2", "model", 1.98, (1.9, 2.05), {"n^2": 0.03}, {"n^2": 1.97})
    assert not disagreements(sane), disagreements(sane)
    # sqlite's `log n 1.51±0.05`
    assert disagreements(fit("log n", "log n", "model", 1.51, (1.46, 1.56), {"log n": 0.05},
                             {"log n": 0.2}))
    # python's `n^3 4.06±3.87` without '?'
    assert disagreements(fit("n^3", "n^3", "model", 4.06, (0.19, 7.93), {"n^3": 0.05},
                             {"n^3": 2.9}))
    # a power law where n log n, allowed, fits
    assert disagreements(fit("~n^1.2", None, "power", 1.17, (1.03, 1.32),
                             {"n log n": 0.09, "n": 0.11}, {"n log n": 1.17, "n": 1.11},
                             window=(6, 79), exponent_from=6))
    # a power law whose text is not its exponent
    assert disagreements(fit("~n^1.5", None, "power", 1.31, (1.25, 1.37), {}, {}))
    # a model that fits badly, without '?'
    assert disagreements(fit("n", "n", "model", 1.0, (0.95, 1.05), {"n": 0.2}, {"n": 1.0}))
