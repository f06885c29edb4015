"""What a mechanism can do for the auditor, as :class:`typing.Protocol` s, and what it says about one audited pair.

The only ability every audited mechanism needs is :class:`Mechanism`: ``mechanism(dataset, n, rng)`` returns ``n``
outputs stacked on axis 0, drawn from ``rng``. The others are optional; each one the mechanism has makes the audit
stronger or its report richer:

- :class:`HasLogDensity` -- ``log_density(dataset, outputs) -> (n,)``, normalised: the Neyman-Pearson statistic;
- :class:`HasWhiteBoxStatistic` -- ``log_likelihood_ratio(dataset, neighbour) -> s`` with ``s(outputs) -> (n,)``:
  the same statistic, computed by the mechanism (e.g. a chain's per-step mixture likelihood ratio);
- :class:`HasPairPrivacyLoss` -- ``pair_privacy_loss(dataset, neighbour)``: the pair's privacy-loss masses (or None),
  for the budget ceiling and the privacy-loss event;
- :class:`HasAccountant` -- ``account(delta)`` with ``.epsilon`` and ``.method``: the accountant's epsilon of the run;
- :class:`HasExactEpsilon` -- ``exact_epsilon(dataset, neighbour, delta)``: the exact pair epsilon, or None;
- :class:`HasQueryValue` / :class:`HasQuery` -- ``query_value(dataset)`` or ``query(dataset)``: what the noise is added
  to, for implementation mode's reachability statistic;
- :class:`HasNeighbourRelation` -- ``are_neighbours(dataset, neighbour) -> bool`` and ``neighbour_relation`` (its name
  in words): the mechanism's own neighbouring relation, when its inputs are not datasets of records (a vector of query
  answers moved by at most 1 in each coordinate, a histogram with one count changed). The audit then judges the pair
  by it instead of by the record relations (:func:`dpverify.audit.datasets.pair_note`);
- :class:`HasOutputBytes` -- ``output_bytes()`` or ``output_bytes(dataset)``: the bytes one output and its temporaries
  take while it is drawn and scored, for the default chunk size (:func:`declared_output_bytes`,
  :func:`dpverify.audit.core.device_chunk_size`).

(BlackJAX declares its ``InitFn``/``UpdateFn`` the same way.) A mechanism may also have the attribute and set it to
None to say "not here" (a sampler releasing its final iterate has no white-box path statistic): the ``*_of``
functions below return the ability's callable, or None when it is absent or None.

:func:`read_facts` asks the mechanism, once per audit, for what it says about the audited pair -- its exact epsilon,
its accountant's answer, its pair privacy loss -- unless the caller gave them, and returns them as a
:class:`MechanismFacts`.
"""
from __future__ import annotations

from dataclasses import dataclass
import inspect
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import numpy as np

from dpverify.validation import check_real, describe_value

__all__ = [
    "Mechanism", "HasLogDensity", "HasWhiteBoxStatistic", "HasPairPrivacyLoss", "HasAccountant", "HasExactEpsilon",
    "HasQueryValue", "HasQuery", "HasNeighbourRelation", "HasOutputBytes", "declared_output_bytes", "Labelled", "PrivacyLossMasses", "HasBasis", "HasExactness", "AccountantAnswer", "PairLoss",
    "MechanismFacts", "log_density_of", "white_box_statistic_of", "query_of", "read_facts", "ACCOUNTANT_NAMES",
    "check_accountant",
]

#: ``(losses, p, q, p_inf, q_inf)``: the privacy-loss masses of a pair (:mod:`dpverify.audit.ceiling`).
Masses = tuple[np.ndarray, np.ndarray, np.ndarray, float, float]


@runtime_checkable
class Mechanism(Protocol):
    """``mechanism(dataset, n, rng)``: ``n`` outputs on axis 0, every random number drawn from ``rng``."""

    def __call__(self, dataset: Any, n: int, rng: np.random.Generator) -> Any: ...


@runtime_checkable
class HasLogDensity(Protocol):
    """The normalised log density (or log pmf) of each output under M(dataset)."""

    def log_density(self, dataset: Any, outputs: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class HasWhiteBoxStatistic(Protocol):
    """A white-box statistic ``outputs -> log p_D - log p_D'`` for the pair (e.g. a chain's per-step mixture
    likelihood ratio), optionally with a ``description`` attribute."""

    def log_likelihood_ratio(self, dataset: Any, neighbour: Any) -> Callable[[np.ndarray], np.ndarray]: ...


@runtime_checkable
class PrivacyLossMasses(Protocol):
    """The privacy-loss masses of a pair (e.g. :class:`~dpverify.calculus.mechanism_description.PairPrivacyLoss`)."""

    def masses(self) -> Masses: ...


@runtime_checkable
class HasBasis(Protocol):
    """What a privacy loss is (one line for the report)."""

    basis: str


@runtime_checkable
class HasExactness(Protocol):
    """Whether a privacy loss is the pair's own law (True) or an upper bound on it (False)."""

    exact: bool


@runtime_checkable
class HasPairPrivacyLoss(Protocol):
    """The audited pair's privacy loss, or None when the mechanism does not know it."""

    def pair_privacy_loss(self, dataset: Any, neighbour: Any) -> PrivacyLossMasses | None: ...


@runtime_checkable
class AccountantAnswer(Protocol):
    """An accountant's epsilon and how it was computed (e.g. a :class:`~dpverify.calculus.guarantees.Conversion`)."""

    epsilon: float
    method: str


@runtime_checkable
class HasAccountant(Protocol):
    """The accountant's (epsilon, delta) of the run at ``delta`` (an upper bound on the pair's epsilon)."""

    def account(self, delta: float) -> AccountantAnswer: ...


@runtime_checkable
class HasExactEpsilon(Protocol):
    """The exact epsilon of the pair at ``delta``, or None when unknown."""

    def exact_epsilon(self, dataset: Any, neighbour: Any, delta: float) -> float | None: ...


@runtime_checkable
class HasQueryValue(Protocol):
    """What the noise is added to (implementation mode's reachability statistic)."""

    def query_value(self, dataset: Any) -> Any: ...


@runtime_checkable
class HasQuery(Protocol):
    """The query whose answer the noise is added to (the same use as :class:`HasQueryValue`)."""

    def query(self, dataset: Any) -> Any: ...


@runtime_checkable
class HasNeighbourRelation(Protocol):
    """The mechanism's own neighbouring relation: ``are_neighbours(dataset, neighbour)`` says whether a pair is one of
    the pairs its DP claim speaks of; ``neighbour_relation`` names the relation in words."""

    neighbour_relation: str

    def are_neighbours(self, dataset: Any, neighbour: Any) -> bool: ...


@runtime_checkable
class HasOutputBytes(Protocol):
    """Bytes one output and its temporaries take while it is drawn and scored: ``output_bytes()``, or
    ``output_bytes(dataset)`` when they grow with the input (the number of answers)."""

    def output_bytes(self, *dataset: Any) -> float: ...


@runtime_checkable
class Labelled(Protocol):
    """A callable that says what it computes (e.g. a white-box statistic's ``description``)."""

    description: str


def log_density_of(mechanism: object) -> Callable[[Any, np.ndarray], np.ndarray] | None:
    """``mechanism.log_density`` when the mechanism has one (:class:`HasLogDensity`), else None."""
    if isinstance(mechanism, HasLogDensity) and callable(mechanism.log_density):
        return mechanism.log_density
    return None


def white_box_statistic_of(mechanism: object) -> Callable[[Any, Any], Callable[[np.ndarray], np.ndarray]] | None:
    """``mechanism.log_likelihood_ratio`` when the mechanism has one (:class:`HasWhiteBoxStatistic`), else None."""
    if isinstance(mechanism, HasWhiteBoxStatistic) and callable(mechanism.log_likelihood_ratio):
        return mechanism.log_likelihood_ratio
    return None


def query_of(mechanism: object) -> Callable[[Any], Any] | None:
    """``mechanism.query_value`` (:class:`HasQueryValue`), else ``mechanism.query`` (:class:`HasQuery`), else None."""
    if isinstance(mechanism, HasQueryValue) and callable(mechanism.query_value):
        return mechanism.query_value
    if isinstance(mechanism, HasQuery) and callable(mechanism.query):
        return mechanism.query
    return None


@dataclass(frozen=True)
class PairLoss:
    """A pair's privacy loss as the auditor uses it: its masses (read once), what it is, and whether it is the pair's
    own law (``exact``) or an upper bound on it."""

    masses: Masses
    basis: str
    exact: bool

    @classmethod
    def read(cls, loss: PrivacyLossMasses) -> "PairLoss":
        if not isinstance(loss, PrivacyLossMasses):
            raise TypeError(f"privacy_loss must have masses() -> (losses, p, q, p_inf, q_inf); got "
                            f"{type(loss).__name__}")
        return cls(loss.masses(), str(loss.basis) if isinstance(loss, HasBasis) else "",
                   bool(loss.exact) if isinstance(loss, HasExactness) else False)


@dataclass(frozen=True)
class MechanismFacts:
    """What is known about the audited pair besides the samples: its exact epsilon at the audit's delta, the
    accountant's answer for the run, the pair's privacy loss (each None when unknown)."""

    exact_epsilon: float | None = None
    accountant: AccountantAnswer | None = None
    privacy_loss: PairLoss | None = None


def read_facts(mechanism: object, dataset: Any, neighbour: Any, delta: float, *, exact_epsilon: float | None = None,
               accountant: AccountantAnswer | str | None = None,
               privacy_loss: PrivacyLossMasses | None = None) -> MechanismFacts:
    """The facts of the pair: the values given, else what the mechanism's abilities say (each asked once), in this
    order: ``exact_epsilon(dataset, neighbour, delta)``, ``account(delta)``, ``pair_privacy_loss(dataset,
    neighbour)``. A given ``exact_epsilon`` must be a number >= 0 (inf allowed); a given ``accountant`` an
    accountant's answer or one of :data:`ACCOUNTANT_NAMES` (:func:`check_accountant`; anything else a ``ValueError``
    naming ``accountant`` and what it may be)."""
    if exact_epsilon is None and isinstance(mechanism, HasExactEpsilon) and callable(mechanism.exact_epsilon):
        exact_epsilon = mechanism.exact_epsilon(dataset, neighbour, delta)
    if exact_epsilon is not None:
        exact_epsilon = check_real("exact_epsilon", exact_epsilon, low=0.0, allow_inf=True)
    if isinstance(accountant, str):
        accountant = _named_accountant(mechanism, accountant, delta)
    elif accountant is not None:
        check_accountant(accountant)
    if accountant is None and isinstance(mechanism, HasAccountant) and callable(mechanism.account):
        accountant = mechanism.account(delta)
    if privacy_loss is None and isinstance(mechanism, HasPairPrivacyLoss) and callable(mechanism.pair_privacy_loss):
        privacy_loss = mechanism.pair_privacy_loss(dataset, neighbour)
    return MechanismFacts(exact_epsilon, accountant, None if privacy_loss is None else PairLoss.read(privacy_loss))


#: The accountant names ``audit(accountant=...)`` accepts: each asks ``mechanism.account(delta, method=name)`` (a
#: sampler's or a mechanism description's PLD or RDP accountant).
ACCOUNTANT_NAMES = ("pld", "rdp")


def _accountant_text(got: Any) -> str:
    return (f"accountant must be one of {', '.join(repr(n) for n in ACCOUNTANT_NAMES)} (the mechanism's own "
            "account(delta, method=name)), an accountant's answer (an object with .epsilon and .method, e.g. the "
            f"Conversion of RdpAccountant/PldAccountant.get_epsilon(delta)), or None; got {describe_value(got)}")


def check_accountant(accountant: Any) -> AccountantAnswer:
    """An accountant's answer: ``.epsilon`` a number >= 0 (inf allowed) and ``.method`` a string; a ``ValueError``
    naming ``accountant`` and what it may be otherwise."""
    if not isinstance(accountant, AccountantAnswer) or not isinstance(accountant.method, str):
        raise ValueError(_accountant_text(accountant))
    check_real("accountant.epsilon", accountant.epsilon, low=0.0, allow_inf=True)
    return accountant


def _named_accountant(mechanism: object, name: str, delta: float) -> AccountantAnswer:
    """``mechanism.account(delta, method=name)`` for a name of :data:`ACCOUNTANT_NAMES`."""
    if name not in ACCOUNTANT_NAMES:
        raise ValueError(_accountant_text(name))
    account = getattr(mechanism, "account", None)
    takes_method = False
    if callable(account):
        try:
            takes_method = "method" in inspect.signature(account).parameters
        except (TypeError, ValueError):
            takes_method = False
    if not takes_method:
        raise ValueError(f"accountant={name!r} asks the mechanism's account(delta, method={name!r}), which "
                         f"{type(mechanism).__name__} does not have: give the accountant's answer instead (an object "
                         "with .epsilon and .method), or None")
    assert account is not None  # takes_method is only True for a callable account
    return check_accountant(account(delta, method=name))


def declared_output_bytes(mechanism: Any, datasets: Sequence[Any] = ()) -> float | None:
    """What one output of ``mechanism`` takes while it is drawn and scored, as the mechanism declares it (bytes), or
    None when it declares nothing: ``mechanism.output_bytes(dataset)``, the largest over ``datasets``, for a mechanism
    whose outputs grow with its input (the number of answers of noisy max, of an additive-noise query or of PrefixSum;
    None when no dataset is given); ``mechanism.output_bytes()`` for one whose method takes no argument (a sampler's
    chains, RAPPOR's bits)."""
    size = getattr(mechanism, "output_bytes", None)
    if not callable(size):
        return None
    takes, needs = _dataset_parameter(size)
    if datasets and takes:
        return max(float(size(dataset)) for dataset in datasets)
    return None if needs else float(size())


def _dataset_parameter(method: Callable) -> tuple[bool, bool]:
    """Whether ``method`` takes a positional argument, and whether it needs one (no default)."""
    try:
        parameters = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature
        return False, False
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    named = [p for p in parameters if p.kind in kinds]
    takes = bool(named) or any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in parameters)
    return takes, bool(named) and named[0].default is inspect.Parameter.empty
