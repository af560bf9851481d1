"""Match statistics for every script here, in one place so that each number is computed one way.

Scores are from one engine's side, in [0, 1]; Elo is logistic. The SPRT is fastchess's: its
pentanomial model of normalized Elo and its decision bounds (alpha = beta = 0.05, as match.sh
passes them).

Pure standard library, so that every script can import it; no command line of its own, since the
bash scripts reach it through games.py and lineage.py.
"""
import math

ALPHA = BETA = 0.05
Z95 = 1.96
# The points one game scores, and those of a pair of games (per game), from the engine's side.
TRINOMIAL = (1.0, 0.5, 0.0)
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)


def elo(score, eps=0.0):
    """Logistic Elo of a score kept `eps` off 0 and 1: ±∞ for a perfect score when eps is 0."""
    score = min(max(score, eps), 1 - eps)
    return -400 * math.log10(1 / score - 1) if 0 < score < 1 else math.copysign(math.inf, score - 0.5)


def mean_and_variance(points, counts):
    """The mean of outcomes worth `points` seen `counts` times, and the variance of one outcome.
    trinomial: (TRINOMIAL, [W, D, L]); pentanomial: (PENTANOMIAL, pairs by the engine's points)."""
    n = sum(counts)
    mean = sum(p * c for p, c in zip(points, counts)) / n
    return mean, sum(c * (p - mean) ** 2 for p, c in zip(points, counts)) / n


def elo_interval(mean, sd, eps=1e-9):
    """The 95 % interval (low, high) of the Elo of a mean score with standard error `sd`, normal
    approximation; its ends are kept `eps` off a perfect score so that they stay finite. Half its
    width is the ± fastchess prints."""
    return elo(mean - Z95 * sd, eps), elo(mean + Z95 * sd, eps)


def wilson_lower(score, n, z=1.645):
    """One-sided 95 % lower bound (Wilson score interval) on a score over n games: finite where
    the normal approximation is not, a match without losses."""
    return (score + z * z / (2 * n) - z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n))) / (1 + z * z / n)


def llr_bounds(alpha=ALPHA, beta=BETA):
    """The SPRT's (lower, upper) decision bounds on the LLR, as fastchess sets them."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def decision(llr, alpha=ALPHA, beta=BETA):
    """"H1" or "H0" once the LLR crosses a bound, else None."""
    lower, upper = llr_bounds(alpha, beta)
    return "H1" if llr >= upper else "H0" if llr <= lower else None


def normalized_llr(counts, elo0, elo1):
    """fastchess's GSPRT log-likelihood ratio of normalized Elo elo1 against elo0 for pentanomial
    counts: the maximum-likelihood pair-score distributions under each hypothesis, found as in
    M. Van den Bergh, "Comments on normalized Elo" (section 4.1), compared on the observed pairs."""
    observed = [max(c, 1e-3) for c in counts]  # fastchess's regularisation of empty buckets
    total = sum(observed)
    observed = [c / total for c in observed]

    def mle(t):
        p = [0.2] * 5
        for _ in range(10):
            mu = sum(a * q for a, q in zip(PENTANOMIAL, p))
            sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(PENTANOMIAL, p)))
            phi = [a - 0.5 - 0.5 * t * sigma * (1 + ((a - mu) / sigma) ** 2) for a in PENTANOMIAL]
            # The theta solving sum(p̂ φ / (1 + θ φ)) = 0: the sum falls from +∞ to −∞ between
            # these bounds, so bisection finds it.
            low, high = -1 / max(phi), -1 / min(phi)
            for _ in range(100):
                theta = (low + high) / 2
                if sum(q * f / (1 + theta * f) for q, f in zip(observed, phi)) > 0:
                    low = theta
                else:
                    high = theta
            new = [q / (1 + theta * f) for q, f in zip(observed, phi)]
            settled = max(abs(a - b) for a, b in zip(new, p)) < 1e-4
            p = new
            if settled:
                break
        return p

    scale = math.sqrt(2) / (800 / math.log(10))
    p0, p1 = mle(elo0 * scale), mle(elo1 * scale)
    return total * sum(q * (math.log(b) - math.log(a)) for q, a, b in zip(observed, p0, p1))
