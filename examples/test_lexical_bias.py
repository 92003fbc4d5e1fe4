"""Example 5: a lexical bias scan of the toxicity model with the cross-geographic templates.

Ghosh et al. (2021), "Detecting Cross-Geographic Biases in Toxicity Modeling", section 3.2
and Appendix A: put each term in place of "person" in 33 template sentences that range from
neutral ("You are a person", Perspective 0.11) to hostile ("Person sucks", 0.89); the 33
scores are the term's vector, and k-means groups terms that move the model alike. A
neutral word should leave the scores where the templates put them; an insult raises them
everywhere; an identity term that raises them is a learned bias. Section 5.2 then measures
the bias with Borkan et al.'s nuanced AUCs, which need toxic / non-toxic labels. The
templates ship with the paper's Perspective scores, not labels; this file labels them from
those scores, which split cleanly in two: the 10 templates that only say a person is there
score <= 0.116, the 23 that disparage the person >= 0.243.

The model is alt-profanity-check (a real scikit-learn model). What it does, measured:
it scores "You are a gay" 0.98 and the ten neutral "gay" templates 0.88 on average (0.09
for "person"), so "gay" clusters with idiot, moron, loser, bastard and scum; "white",
"transgender", "jew", "black" and "lesbian" form the next cluster (neutral templates 0.29 to
0.54). The strict xfails below carry those figures: if a retrained model fixes one, its
test says so.

The terms are this file's own short lists, as a team would write for its users; the
paper's Phase 1 (section 3.1: `biased_term_candidates` over per-country corpora) is how
to find more, and is run here in miniature on the template fills.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import pytest_fairness as pf
from pytest_fairness.metrics import log_odds_dirichlet, term_sensitivity_clusters
from pytest_fairness.metrics.lexical import TermClusters
from pytest_fairness.perturb.templates import Template, fill, load_templates
from pytest_fairness.report.charts import clusters_section

# term -> its plural, for the five "These people ..." templates.
IDENTITY = {
    "muslim": "muslims", "christian": "christians", "jew": "jews", "hindu": "hindus",
    "sikh": "sikhs", "buddhist": "buddhists", "atheist": "atheists", "catholic": "catholics",
    "indian": "indians", "pakistani": "pakistanis", "nigerian": "nigerians",
    "mexican": "mexicans", "african": "africans", "arab": "arabs", "asian": "asians",
    "american": "americans", "chinese": "chinese", "black": "blacks", "white": "whites",
    "immigrant": "immigrants", "woman": "women", "man": "men", "gay": "gays",
    "lesbian": "lesbians", "transgender": "transgenders", "feminist": "feminists",
    "liberal": "liberals", "conservative": "conservatives", "communist": "communists",
}
# Neutral nouns: the background of the AUCs, and the reference behaviour for the clusters.
CONTROLS = {"person": "people", "teacher": "teachers", "doctor": "doctors",
            "neighbour": "neighbours", "friend": "friends"}
# Words that are insults whatever the sentence: the paper's cluster C1.
INSULTS = {"idiot": "idiots", "moron": "morons", "loser": "losers", "bastard": "bastards",
           "scum": "scum"}
TERMS = {**IDENTITY, **CONTROLS, **INSULTS}

# Toxic / non-toxic labels of the templates: the paper's Perspective scores fall in two
# groups with nothing between 0.116 and 0.243 (see the module docstring).
TOXIC_FROM = 0.2


@dataclass(frozen=True)
class Scan:
    terms: tuple[str, ...]
    scores: np.ndarray
    """(terms, templates): the model's score with the term in the slot."""
    template_scores: np.ndarray
    """The model's score on each template as written ("person" / "people")."""
    toxic: np.ndarray
    """Label of each template."""
    texts: tuple[tuple[str, ...], ...]

    def __repr__(self) -> str:  # short, for tracebacks
        return f"Scan({len(self.terms)} terms x {self.scores.shape[1]} templates)"


def _filled(template: Template, term: str) -> str:
    return fill(template, TERMS[term] if template.reference == "people" else term)


@pytest.fixture(scope="module")
def scan(toxicity_model: pf.TextModel) -> Scan:
    """Every term in every template, scored in one batch (33 x 39 = 1287 sentences)."""
    templates = load_templates("cross_geographic").templates
    terms = tuple(TERMS)
    texts = tuple(tuple(_filled(t, term) for t in templates) for term in terms)
    flat = [text for row in texts for text in row]
    scores = np.asarray(toxicity_model.score(flat)).reshape(len(terms), len(templates))
    as_written = [fill(t, t.reference or "person") for t in templates]
    return Scan(
        terms=terms,
        scores=scores,
        template_scores=np.asarray(toxicity_model.score(as_written)),
        toxic=np.asarray([(t.score or 0.0) >= TOXIC_FROM for t in templates]),
        texts=texts,
    )


@pytest.fixture(scope="module")
def clusters(scan: Scan) -> TermClusters:
    """k-means with the paper's k = 4 over the terms' 33-score vectors (section 4.2)."""
    return term_sensitivity_clusters(scan.terms, scan.scores, n_clusters=4,
                                     template_scores=scan.template_scores, seed=0,
                                     group="identity terms, controls, insults")


def test_the_templates_mean_to_this_model_what_they_meant_to_perspective(scan: Scan) -> None:
    """The scan only says something if the model ranks the templates roughly as the paper's
    model did. Measured: Pearson r = 0.68 with the Appendix A scores; the neutral
    templates average 0.09, the hostile ones 0.37 (a profanity model misses "I really
    dislike person", 0.17)."""
    paper = [t.score for t in load_templates("cross_geographic").templates]
    r = float(np.corrcoef(scan.template_scores, paper)[0, 1])
    assert r >= 0.5, f"r = {r:.2f}"
    assert scan.template_scores[~scan.toxic].mean() < scan.template_scores[scan.toxic].mean()


def test_term_clusters_separate_insults_from_neutral_words(
    scan: Scan, clusters: TermClusters
) -> None:
    """Phase 2: the clusters go to the fairness report (terminal summary and HTML).

    Measured (mean shift over the templates): C3 +0.63 = gay and the five insults;
    C2 +0.20 = jew, black, white, lesbian, transgender; C1 +0.02 = person with muslim,
    hindu, sikh, pakistani, mexican, arab, woman, man, feminist, liberal, communist...;
    C0 -0.10 = teacher, doctor, neighbour, friend with christian, buddhist, african,
    conservative... Cluster numbers follow the mean shift, not the paper's C0-C3 names.
    """
    pf.record(pf.FairnessResult(  # a result of our own, with a chart, in the report
        relation="term_clusters",
        measurements=(pf.Measurement("k-means inertia", clusters.inertia),),
        n_inputs=int(scan.scores.size),
        sections=(clusters_section(clusters.to_dict()),),
    ))
    top = clusters.curves.shape[0] - 1
    assert {clusters.cluster_of(word) for word in INSULTS} == {top}
    assert all(clusters.cluster_of(word) != top for word in CONTROLS)
    shifts = clusters.mean_shifts()
    assert shifts is not None
    assert shifts[top] > 0.3
    assert abs(shifts[clusters.cluster_of("person")]) < 0.05


def test_neutral_nouns_do_not_raise_the_score(toxicity_model: pf.TextModel) -> None:
    """The lexical-shift relation (section 3.2) on the controls: replacing "person" by a
    neutral noun lowers the scores if anything (teacher -0.06, doctor -0.15 on average)."""
    pf.assert_lexical_shift_below(toxicity_model, CONTROLS, 0.05, label="controls")


@pytest.mark.xfail(
    strict=True,
    reason="known bias: 'gay' raises the scores of the 33 templates by 0.50 on average "
    "(white 0.25, transgender 0.23, jew 0.23, black 0.18, lesbian 0.13, immigrant 0.10)",
)
def test_identity_terms_do_not_raise_the_score(toxicity_model: pf.TextModel) -> None:
    """The bound a team would want on its identity terms, judged by the built-in relation
    (`pf.assert_lexical_shift_below`: per-term chart and term clusters in the report)."""
    pf.assert_lexical_shift_below(toxicity_model, IDENTITY, 0.1, label="identity terms")


@pytest.mark.xfail(
    strict=True,
    reason="known bias: 'gay' clusters with the insults (mean shift +0.50; the ten neutral "
    "templates score 0.88 with 'gay', 0.09 with 'person'; 'You are a gay' 0.98)",
)
def test_no_identity_term_clusters_with_the_insults(scan: Scan, clusters: TermClusters) -> None:
    """The bound a team would want: identity words are not insults."""
    top = clusters.curves.shape[0] - 1
    joined = [word for word in IDENTITY if clusters.cluster_of(word) == top]
    examples = [f"{scan.texts[i][0]!r} scores {scan.scores[i, 0]:.2f}"
                for i in (scan.terms.index(word) for word in joined)]
    assert not joined, f"in the insults' cluster: {joined} ({'; '.join(examples)})"


@pytest.mark.xfail(
    strict=True,
    reason="known bias: the model flags 27 of the 33 'gay' fills (score >= 0.5) against 8 "
    "of 33 for 'person': z = 3.14",
)
def test_no_identity_term_is_over_represented_in_flagged_fills(scan: Scan) -> None:
    """Phase 1 in miniature (section 3.1): the model labels the fills (as Perspective
    labelled the paper's tweets) and the Monroe et al. log-odds z-score, with the pooled
    counts as its informative Dirichlet prior, asks which terms are over-represented in
    the flagged fills. It finds the five insults (z = 4.1 to 4.3), so it works here; the
    only identity term above 1.96 is "gay" (white 1.73, transgender 1.53, jew 1.32)."""
    flagged = (scan.scores >= 0.5).sum(axis=1)
    z = log_odds_dirichlet(flagged, scan.scores.shape[1] - flagged).z
    found = dict(zip(scan.terms, z.tolist(), strict=True))
    assert all(found[word] >= 1.96 for word in INSULTS)  # the screen sees real insults
    over = {word: round(found[word], 2) for word in IDENTITY if found[word] >= 1.96}
    assert not over, f"over-represented in flagged fills: {over}"


# Nuanced bias AUCs (Borkan et al., as in section 5.2), one relation over every identity
# term: `pf.assert_subgroup_aucs_above` records one result whose table holds each term's
# subgroup, BPSN and BNSP AUCs and AEGs, the worst term first. Subgroup AUC: does the model
# rank hostile templates about X above neutral ones about X? BPSN: neutral sentences about
# X below hostile ones about anyone else? Below 0.5 the model does worse than a coin: it
# treats X itself as toxic. The background is the other identity terms and the controls;
# the model's AUC over all of them is 0.67 (0.675). Measured figures of the failing terms:
KNOWN_BIASED = {
    "gay": "BPSN 0.16, subgroup AUC 0.42 (AEG- +0.49: its neutral templates score higher)",
    "white": "BPSN 0.33, subgroup AUC 0.48",
    "transgender": "BPSN 0.34",
    "jew": "BPSN 0.36",
    "black": "BPSN 0.44",
    "lesbian": "BPSN 0.45",
    "immigrant": "BPSN 0.48",
    "communist": "BPSN 0.49",
}


@pytest.mark.xfail(
    strict=True,
    reason="known bias: 8 of 29 identity terms below 0.5, worst first: "
    + "; ".join(f"{term} {found}" for term, found in KNOWN_BIASED.items()),
)
def test_identity_terms_are_not_treated_as_toxic(scan: Scan) -> None:
    """Subgroup AUC and BPSN AUC >= 0.5 for every identity term, as one table (the insults
    are left out: with them a neutral template is no longer non-toxic). BNSP (hostile
    sentences about X vs neutral ones about others) is in the table but not bounded: it is
    low where the model misses hostility, e.g. 0.31 for "conservative", whose fills score
    low. The failure lists the neutral fills that score like insults ("You are a gay",
    0.98), the term marked."""
    keep = [i for i, word in enumerate(scan.terms) if word not in INSULTS]
    words = np.asarray([scan.terms[i] for i in keep])
    n_templates = scan.scores.shape[1]
    subgroups = {term: np.repeat(words == term, n_templates) for term in IDENTITY}
    pf.assert_subgroup_aucs_above(
        scan.scores[keep].ravel(),
        np.tile(scan.toxic, len(keep)),
        subgroups,
        0.5,
        metrics=("subgroup_auc", "bpsn_auc"),
        texts=[text for i in keep for text in scan.texts[i]],
    )
