"""Privacy accounting for PEARL in zero-concentrated DP (paper Section 4.2).

Every mechanism PEARL runs is charged as a zCDP event and composed with
Google's ``dp-accounting`` RDP accountant (a rho-zCDP event is
(alpha, rho * alpha)-RDP); the total is converted to (epsilon, delta) only
at the end.

* An epsilon exponential-mechanism step is epsilon-bounded-range and hence
  ``epsilon**2 / 8``-zCDP (Cesar & Rogers, 2021).  Every exponential
  mechanism here is calibrated by its *range* sensitivity (see
  :func:`enforcers.dp_decoding.mechanisms.exponential_scores`), which is what the
  bounded-range argument needs.
* Any other pure epsilon-DP step (sparse vector) is ``epsilon**2 / 2``-zCDP
  (Bun & Steinke, 2016).

The accountant is a privacy *filter* (Feldman & Zrnic, 2021): it holds a
total rho budget solved from the target (epsilon, delta) and refuses any
charge that would exceed it, so later stages may choose their epsilon from
what earlier stages left over without breaking the guarantee.

Each application is composed as its own event.  ``dp-accounting``'s
unreleased ``ExponentialMechanismDpEvent`` is deliberately not used: composed
with a count it is charged only once.

``dp-accounting`` (with scipy) takes about a second to import, so it is
imported where a conversion runs; :func:`rho_lower_bound` needs no import and
lets lint settle most policies without it.
"""

from __future__ import annotations

import math
import threading

from policy_engine.errors import BudgetExhausted, PolicyEngineError

__all__ = [
    "AttemptAbandoned",
    "PrivacyAccountant",
    "epsilon_for_rho",
    "exponential_epsilon_for",
    "exponential_mechanism_rho",
    "pure_epsilon_for",
    "pure_dp_rho",
    "rho_for_epsilon",
    "rho_lower_bound",
]


def exponential_mechanism_rho(epsilon: float) -> float:
    """zCDP cost of one epsilon-bounded-range exponential mechanism."""
    return epsilon * epsilon / 8.0


def exponential_epsilon_for(rho: float, applications: int) -> float:
    """Per-application epsilon so ``applications`` exponential mechanisms fit in ``rho``.

    Rounded down by a relative 1e-9 so float error can never push the
    composed total over ``rho``.
    """
    if applications <= 0 or rho <= 0:
        return 0.0
    return math.sqrt(8.0 * rho / applications) * (1.0 - 1e-9)


def pure_epsilon_for(rho: float, applications: int) -> float:
    """Per-application epsilon so ``applications`` pure-DP steps fit in ``rho``."""
    if applications <= 0 or rho <= 0:
        return 0.0
    return math.sqrt(2.0 * rho / applications) * (1.0 - 1e-9)


def pure_dp_rho(epsilon: float) -> float:
    """zCDP cost of one pure epsilon-DP mechanism."""
    return epsilon * epsilon / 2.0


def _epsilon_of_events(rhos: list[float], delta: float) -> float:
    """(epsilon, delta) of rho-zCDP events composed one by one with dp-accounting's RDP accountant."""
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant

    accountant = rdp_privacy_accountant.RdpAccountant()
    for rho in rhos:
        accountant.compose(dp_event.ZCDpEvent(rho))
    return float(accountant.get_epsilon(delta))


def epsilon_for_rho(rho: float, delta: float) -> float:
    """(epsilon, delta) conversion of a total rho-zCDP, via dp-accounting."""
    return _epsilon_of_events([rho], delta)


def rho_lower_bound(epsilon: float, delta: float) -> float:
    """A rho no larger than :func:`rho_for_epsilon`'s, in closed form (no dp-accounting import).

    Inverts the classic conversion ``epsilon = rho + 2 sqrt(rho ln(1/delta))``
    (Bun & Steinke, 2016, Proposition 1.3); dp-accounting's RDP conversion is
    never looser, so the largest rho it admits is at least this one.
    """
    if math.isinf(epsilon):
        return math.inf
    log_inverse_delta = math.log(1.0 / delta)
    return (math.sqrt(log_inverse_delta + epsilon) - math.sqrt(log_inverse_delta)) ** 2


def rho_for_epsilon(epsilon: float, delta: float) -> float:
    """Largest total rho whose (epsilon, delta) conversion stays within ``epsilon``.

    Solved by bisection on :func:`epsilon_for_rho`; the result is always on
    the safe side (``epsilon_for_rho(result, delta) <= epsilon``).
    """
    if math.isinf(epsilon):
        return math.inf
    low, high = 0.0, max(1.0, epsilon)
    while epsilon_for_rho(high, delta) <= epsilon:
        high *= 2.0
    for _ in range(60):
        mid = (low + high) / 2.0
        if epsilon_for_rho(mid, delta) <= epsilon:
            low = mid
        else:
            high = mid
    return low


class AttemptAbandoned(PolicyEngineError, RuntimeError):
    """The answer was settled (abandoned on a timeout, or failed): its accountant takes no further charge."""


class PrivacyAccountant:
    """Thread-safe zCDP filter for one private generation.

    ``epsilon``/``delta`` is the guarantee the whole generation must meet;
    ``rho_budget`` the zCDP total that achieves it.  ``charge_*`` records one
    mechanism application or raises :class:`BudgetExhausted` (recording nothing);
    once :meth:`close` d, every charge raises :class:`AttemptAbandoned`, so what
    was spent when the answer was settled is all it ever spends.
    """

    def __init__(self, epsilon: float, delta: float) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.rho_budget = rho_for_epsilon(epsilon, delta)
        self._events: list[float] = []  # the rho of each charged application
        self._lock = threading.Lock()
        self._closed = False

    def close(self) -> None:
        """Refuse every later charge (the answer's spend is settled)."""
        with self._lock:
            self._closed = True

    @property
    def rho_spent(self) -> float:
        with self._lock:
            return math.fsum(self._events)

    @property
    def rho_remaining(self) -> float:
        return max(0.0, self.rho_budget - self.rho_spent)

    @property
    def applications(self) -> int:
        """Number of mechanism applications charged so far."""
        with self._lock:
            return len(self._events)

    def can_afford(self, rho: float, ceiling: float | None = None) -> bool:
        """Whether charging ``rho`` keeps the total under the budget (and ``ceiling``)."""
        limit = self.rho_budget if ceiling is None else min(ceiling, self.rho_budget)
        return self.rho_spent + rho <= limit

    def charge_exponential(self, epsilon: float) -> None:
        """Charge one epsilon exponential-mechanism application."""
        self._charge(exponential_mechanism_rho(epsilon))

    def charge_pure(self, epsilon: float) -> None:
        """Charge one pure epsilon-DP application (e.g. sparse vector)."""
        self._charge(pure_dp_rho(epsilon))

    def _charge(self, rho: float) -> None:
        with self._lock:
            if self._closed:
                raise AttemptAbandoned("this answer's privacy spend is already settled; no further mechanism may run")
            spent = math.fsum(self._events)
            if spent + rho > self.rho_budget:
                raise BudgetExhausted(
                    f"charge of rho={rho:.3g} exceeds the remaining zCDP budget "
                    f"{self.rho_budget - spent:.3g} for (epsilon={self.epsilon}, delta={self.delta})"
                )
            self._events.append(rho)

    def epsilon_spent(self) -> float:
        """(epsilon, delta)-DP of everything charged, composed event by event."""
        with self._lock:
            events = list(self._events)
        if not events:
            return 0.0
        return _epsilon_of_events(events, self.delta)
