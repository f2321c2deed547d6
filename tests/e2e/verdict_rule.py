"""The growth verdict's rule, checked from a report's JSON alone, as
report/growth_fit.h states it, and apart from report/growth_fit.c's code
(this file restates the rule from the header's words; it reads the JSON
report's points and `fit` objects):

- every model's error is that of its own curve a + b f(n - offset) + c n
  over the sizes judged (the window, less what was set aside), each size
  class weighing 1, each relative residual counted up to 100%; no
  coefficient is negative;
- the noise is the spread of cost at equal n, at least 1%; the best error
  is the smallest of the models' (with a degree of freedom left) and, over
  5 classes or more, the power law's;
- a model *fits* when its error is at most 1.2 times the best plus the
  noise, the noise counted no larger than the best error (at least 1%); a *candidate* fits, has a degree of freedom left, and its growing
  term is at least a quarter of its cost at the largest size (1 always);
- a model verdict names, of the candidates with fewest terms (1 for the
  constant, 2, one more for a c n term or an offset n0 but on n), the one of
  lowest AICc (errors below half the noise counted as half the noise); its
  rivals, candidates with as many terms within 4 of it, are named with it:
  one is "n", two neighbours "n or n log n", more a range "n..n^3" with '?';
- a power law ("~n^1.5") only where no model is a candidate; without '?'
  only when its exponent range is at most 0.5 wide, its error at most 10%
  and it has 5 classes;
- a confident verdict fits within 10% and no worse than any curve by more
  than the noise allows, and its exponent range is at most 1 wide; every exponent is >= 0 and its range holds the
  exponents of the models named (0 for 1, 1 for n, 2, 3).

A verdict breaking any of these *disagrees*: what issue 24 showed as
`~n^0.46` with `n` fitting at 0.0%, or `~n^-0.26` for a constant."""
import math

FIT_RATIO = 1.2
NOISE_FLOOR = 0.01
MATERIAL = 0.25
AIC_TIE = 4.0
POOR_ERROR = 0.10
POWER_WIDTH = 0.5
MODELS = ["1", "log n", "n", "n log n", "n^2", "n^3"]
OWN_POWER = {"1": 0, "n": 1, "n^2": 2, "n^3": 3}


def f_of(model, n):
    return {"1": lambda: 1, "log n": lambda: math.log2(n) if n > 1 else 0, "n": lambda: n,
            "n log n": lambda: n * math.log2(n) if n > 1 else 0, "n^2": lambda: n * n,
            "n^3": lambda: n ** 3}[model]()


def class_of(n):
    return math.floor(math.log2(n) * 4)


def judged(points, fit):
    """The points the fit judged, with their class weights."""
    classes = {}
    for p in points:
        if p["n"] > 0:
            classes[class_of(p["n"])] = classes.get(class_of(p["n"]), 0) + 1
    lo, hi = fit["window"]
    return [(p, 1 / classes[class_of(p["n"])]) for p in points
            if p["n"] > 0 and lo <= p["n"] <= hi and p["n"] not in fit["set_aside"]]


def cost_of(p, kind):
    cost = p["max"] if kind == "worst" else p["sum"] / p["calls"]
    return max(cost, 1)


def error_of(curve, model, points, kind):
    sq = w = 0
    for p, weight in points:
        n, cost = p["n"], cost_of(p, kind)
        r = (cost - (curve["a"] + curve["b"] * f_of(model, n - curve["offset"]) +
                     curve["c"] * n)) / cost
        sq += weight * min(r * r, 1)
        w += weight
    return math.sqrt(sq / w) if w else 1


def spread_of(p):
    if p["calls"] < 2:
        return None
    mean = p["sum"] / p["calls"]
    var = (p["sumsq"] / p["calls"] - mean * mean) * p["calls"] / (p["calls"] - 1)
    return math.sqrt(var) / mean if var > 0 and mean > 0 else 0


def criterion(error, floor, m, p):
    e = max(error, floor)
    return m * math.log(e * e) + 2 * p + (2 * p * (p + 1) / (m - p - 1) if m - p - 1 > 0 else 1e6)


def disagreements(fit, points, kind):
    """What is wrong with FIT (a JSON `fit` object) of POINTS (the row's
    points of its metric) by worst-case or average cost; [] when nothing."""
    if not fit["verdict"]:
        return []
    problems = []
    if len(fit["set_aside"]) < fit.get("set_aside_classes", 0):
        return []  # the report names the first sizes set aside only: nothing to recompute
    pts = judged(points, fit)
    classes = len({class_of(p["n"]) for p, _ in pts})
    spreads = [(spread_of(p), w) for p, w in pts if spread_of(p) is not None]
    pooled = math.sqrt(sum(s * s * w for s, w in spreads) / sum(w for _, w in spreads)) \
        if spreads else 0
    noise = max(NOISE_FLOOR, pooled)
    if abs(noise - fit["noise"]) > 1e-6:
        problems.append(f"noise {fit['noise']:.4f}, the spread at equal n says {noise:.4f}")
    error, terms = {}, {}
    for m in MODELS:
        curve = fit["models"][m]
        error[m] = error_of(curve, m, pts, kind)
        if abs(error[m] - curve["error"]) > 1e-4:
            problems.append(f"{m}'s error {curve['error']:.4f} is {error[m]:.4f} by its curve")
        if min(curve["a"], curve["b"], curve["c"], curve["offset"]) < 0:
            problems.append(f"{m} has a negative coefficient")
        terms[m] = 1 if m == "1" else 2 + (curve["c"] > 0) + (curve["offset"] > 0 and m != "n")
    best = min([error[m] for m in MODELS if terms[m] + 1 <= classes] +
               ([fit["power_law"]["error"]] if classes >= 5 else []) + [1])
    if abs(best - fit["best_error"]) > 1e-4:
        problems.append(f"best error {fit['best_error']:.4f}, the curves say {best:.4f}")
    tolerance = FIT_RATIO * best + max(NOISE_FLOOR, min(noise, best))
    top = fit["window"][1]
    candidate = {}
    for m in MODELS:
        c = fit["models"][m]
        grow = c["b"] * f_of(m, top - c["offset"])
        share = 1 if m == "1" else grow / (c["a"] + grow + c["c"] * top) if grow > 0 else 0
        candidate[m] = error[m] <= tolerance and terms[m] + 1 <= classes and share >= MATERIAL
    aic = {m: criterion(error[m], noise / 2, classes, terms[m]) for m in MODELS}
    text, poor = fit["growth"], fit["growth"].endswith("?")
    if poor != fit["poor"] or poor != (fit["kind"] == "poor"):
        problems.append(f"'{text}' is kind {fit['kind']}, poor {fit['poor']}")
    if not any(candidate.values()):
        if not text.startswith("~") or text.rstrip("?") != f"~n^{fit['exponent']:.2g}":
            problems.append(f"'{text}' where no model is a candidate: the power law "
                            f"~n^{fit['exponent']:.2g}")
        lo, hi = fit["exponent_ci"]
        if not poor and (hi - lo > POWER_WIDTH or fit["power_curve"]["error"] > POOR_ERROR or
                         classes < 5):
            problems.append(f"'{text}' without '?': range {hi - lo:.2f} wide, error "
                            f"{fit['power_curve']['error']:.3f}, {classes} classes")
    else:
        chosen = min((m for m in MODELS if candidate[m]), key=lambda m: (terms[m], aic[m]))
        rivals = [m for m in MODELS if candidate[m] and terms[m] == terms[chosen] and
                  aic[m] <= aic[chosen] + AIC_TIE]
        i, j = MODELS.index(rivals[0]), MODELS.index(rivals[-1])
        pair = len(rivals) == 2 and j == i + 1
        want = rivals[0] if len(rivals) == 1 else \
            f"{rivals[0]}{' or ' if pair else '..'}{rivals[-1]}"
        if text.rstrip("?") != want or fit["model"] != chosen:
            problems.append(f"'{text}' (model {fit['model']}) where the rule names '{want}' "
                            f"(model {chosen})")
        if not poor and not (len(rivals) == 1 or pair):
            problems.append(f"'{text}' without '?' though {rivals} cannot be told apart")
        if not poor and fit["exponent_ci"][1] - fit["exponent_ci"][0] > 1.0:
            problems.append(f"'{text}' without '?' on an exponent range over 1 wide")
        if not poor and (error[chosen] > POOR_ERROR or error[chosen] > tolerance):
            problems.append(f"'{text}' without '?': error {error[chosen]:.3f}, best {best:.3f}, "
                            f"noise {noise:.3f}")
        lo, hi = fit["exponent_ci"]
        for m in rivals:
            if m in OWN_POWER and not lo - 1e-6 <= OWN_POWER[m] <= hi + 1e-6:
                problems.append(f"'{text}' names {m}, outside the exponent's range "
                                f"[{lo:.3f}, {hi:.3f}]")
    if fit["exponent"] < 0 or fit["exponent_ci"][0] < 0:
        problems.append(f"'{text}' with a negative exponent {fit['exponent']:.3f}")
    return problems


def report_disagreements(report):
    """Every verdict of a JSON report that breaks the rule, as text."""
    found = []
    for row in report["routines"]:
        for metric in ("rms", "trms"):
            for kind in ("worst", "average"):
                for problem in disagreements(row["fit"][metric][kind], row[f"{metric}_points"],
                                             kind):
                    found.append(f"{row['name']} (thread {row['thread']}) {kind} by {metric}: "
                                 f"{problem}")
    return found


def self_test():
    """The rule catches what issue 24 showed; raises AssertionError if not."""
    points = [{"n": n, "calls": 1, "min": c, "max": c, "sum": c, "sumsq": c * c}
              for n, c in [(4, 216), (8, 232), (16, 264), (32, 328), (64, 456), (96, 584)]]

    def fit(growth, model, kind, k, ci, errors, curves, power_error=0.0):
        return {"verdict": True, "growth": growth, "model": model, "kind": kind,
                "poor": growth.endswith("?"), "exponent": k, "exponent_ci": list(ci),
                "window": [4, 96], "set_aside": [], "noise": 0.01,
                "best_error": min(list(errors.values()) + [power_error]),
                "power_law": {"error": power_error}, "power_curve": {"error": power_error},
                "models": {m: dict(curves.get(m, {"a": 500.0, "b": 0.0, "c": 0.0,
                                                  "offset": 0.0}), error=errors.get(m, 0.5))
                           for m in MODELS}}
    line = {"a": 200.0, "b": 4.0, "c": 0.0, "offset": 0.0}
    errors = {m: error_of(fit("", "", "", 0, (0, 0), {}, {})["models"][m], m,
                          judged(points, {"window": [4, 96], "set_aside": []}), "worst")
              for m in MODELS}
    errors["n"] = 0.0
    # 200 + 4 n called ~n^0.46 while n fits exactly
    bad = fit("~n^0.46", None, "power", 0.46, (0.4, 0.5), errors, {"n": line})
    assert disagreements(bad, points, "worst")
    good = fit("n", "n", "model", 1.0, (0.95, 1.05), errors, {"n": line})
    assert not disagreements(good, points, "worst"), disagreements(good, points, "worst")
    # a negative exponent
    assert disagreements(fit("n", "n", "model", -0.26, (-0.3, 1.05), errors, {"n": line}),
                         points, "worst")
    # an error that is not the curve's
    assert disagreements(fit("n", "n", "model", 1.0, (0.95, 1.05), dict(errors, n=0.2),
                             {"n": line}), points, "worst")
