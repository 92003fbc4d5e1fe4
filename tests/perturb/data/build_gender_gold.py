"""Build `gender_swap_gold.jsonl`, the gold set of the gender swap (issue 15).

Run by hand after changing the word list (``python tests/perturb/data/build_gender_gold.py``);
the JSONL it writes is checked in and read by ``tests/perturb/test_gender_gold.py`` and
``benchmarks/gender_swap_accuracy.py``. Each line is ``{"original", "expected", "category",
"target"}``.

The expected outputs are written by the rules of English stated here, never by running the
swapper: every pronoun frame is written once with slots and filled with the male forms on
one side and the female forms on the other (he/she, him/her, his/her, his/hers,
himself/herself); every word pair of ``pytest_fairness/data/gender_words.json`` is put in
natural frames in its singular, plural, possessive, capitalised, upper-case and
article-bearing forms, the article chosen by sound (``_article``); the hard cases and the
sentences that must not change are written out by hand, one by one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORDS = HERE.parents[2] / "pytest_fairness" / "data" / "gender_words.json"
OUT = HERE / "gender_swap_gold.jsonl"

MALE = {"S": "he", "O": "him", "D": "his", "P": "his", "R": "himself"}
FEMALE = {"S": "she", "O": "her", "D": "her", "P": "hers", "R": "herself"}

# One frame per line; {S} subject, {O} object, {D} possessive determiner, {P} possessive
# pronoun, {R} reflexive; a trailing "_" title-cases the form ({S_} -> He / She).
FRAMES: dict[str, list[str]] = {
    "pronoun_subject": [
        "{S_} is tired.", "I think {S} is right.", "{S_} walks to work every day.",
        "Yesterday {S} bought a new car.", "When {S} arrived, the party started.",
        "{S_} and I went home.", "Does {S} like pizza?", "Why did {S} leave so early?",
        "{S_}'s going to the store.", "{S_}'s been there before.", "I know {S}'d say yes.",
        "{S_}'ll be here soon.", "Is {S} coming tonight?", "The teacher said that {S} passed.",
        "{S_} can swim very well.", "After lunch, {S} took a nap.",
        "\u201c{S_} is late,\u201d said the teacher.", "My friend says {S} never lies.",
        "If {S} calls, tell me.", "{S_} wasn't sure about it.", "Only {S} knows the answer.",
        "Before {S} left, {S} locked the door.", "{S_} smiled and waved.",
        "Everyone agreed that {S} was brilliant.", "{S_} works as a nurse.",
        "{S_} doesn't eat meat.", "Would {S} mind waiting?", "{S_} has two cats.",
    ],
    "pronoun_object": [
        "I saw {O} yesterday.", "They called {O} last night.", "Give {O} the book.",
        "I gave the book to {O}.", "We waited for {O} outside.", "Tell {O} I said hello.",
        "Nobody trusts {O}.", "The dog followed {O} home.", "I went with {O} to the market.",
        "Did you call {O}?", "Everyone likes {O}.", "I bought {O} a gift.",
        "The teacher praised {O} in class.", "I'll meet {O} at noon.", "Let's ask {O}.",
        "I can't hear {O}.", "We sat next to {O}.", "Thank {O} for me.",
        "The news surprised {O}.", "I have known {O} for years.", "Send {O} my regards.",
        "I like {O} more than you.", "Without {O}, we would be lost.", "They hired {O} again.",
        "Ask {O} about it.", "The crowd cheered for {O}.",
    ],
    "pronoun_possessive_determiner": [
        "{D_} car is red.", "I borrowed {D} book.", "We visited {D} house.",
        "I love {D} smile.", "{D_} dog barked all night.", "I met {D} new colleague.",
        "{D_} very old cat sleeps a lot.", "Where is {D} phone?", "I read {D} latest novel.",
        "{D_} own company failed.", "The boss praised {D} work.", "{D_} first day went well.",
        "I heard {D} voice.", "That is {D} bike.", "They took {D} advice.",
        "I admire {D} courage.", "Did you see {D} painting?", "{D_} friends left early.",
        "We used {D} car.", "I forgot {D} name.", "{D_} job is hard.",
        "Everyone liked {D} speech.", "I found {D} keys.", "It is {D} own fault.",
        "At {D} best, the team was unbeatable.", "The cat sat on {D} lap.",
    ],
    "pronoun_possessive_pronoun": [
        "That car is {P}.", "The book is {P}, not mine.", "{P_} is the red one.",
        "Is this pen {P} or mine?", "I prefer {P}.", "Mine is old but {P} is new.",
        "The choice was {P}.", "{P_} was better.", "The blame is {P}.", "This seat is {P}.",
        "Which one is {P}?", "Is that coat {P}?", "The victory was {P}, not ours.",
        "Our house is bigger than {P}.", "I lost my umbrella, so I took {P}.",
        "Yours is here and {P} is there.", "{P_} arrived first.", "Was the idea {P}?",
        "The last word was {P}.", "Your car is faster than {P}.",
    ],
    "pronoun_reflexive": [
        "{S_} hurt {R}.", "{S_} made {R} a sandwich.", "{S_} did it {R}.",
        "{S_} looked at {R} in the mirror.", "{S_} can take care of {R}.",
        "{S_} {R} said so.", "{S_} taught {R} to code.", "{S_} blamed {R} for the loss.",
        "{S_} bought {R} a new phone.", "{S_} lives by {R}.", "{S_} introduced {R}.",
        "{S_} was proud of {R}.", "{S_} kept the secret to {R}.", "{S_} enjoyed {R} at the party.",
        "{S_} poured {R} a drink.", "{S_} calmed {R} down.",
    ],
    "pronoun_object_small_clause": [
        "I made {O} feel discouraged.", "I let {O} go home.", "We saw {O} leave.",
        "I heard {O} sing.", "We helped {O} move.", "They watched {O} dance.",
        "I had {O} call me.", "The movie made {O} cry.", "I noticed {O} hesitate.",
        "Let {O} know.", "I made {O} happy.", "I saw {O} quickly run away.",
        "Nobody heard {O} scream.", "I want {O} to go.", "We watched {O} fall.",
        "I saw {O} smile.", "They let {O} sleep.", "I heard {O} laugh.",
        "We had {O} wait outside.", "The joke made {O} laugh.", "I helped {O} carry the box.",
        "They made {O} stay late.", "I felt {O} tremble.", "I watched {O} leave the room.",
        "They let {O} win.", "I heard {O} speak at the meeting.", "We saw {O} walk away.",
        "I noticed {O} smile at the child.", "I found {O} funny.", "They consider {O} smart.",
        "I expect {O} to win.", "Don't let {O} down.", "I watched {O} cry.",
        "We heard {O} shout.", "I saw {O} jump.", "I made {O} try again.",
        "They helped {O} climb the wall.", "I let {O} drive.", "We saw {O} wave.",
        "I had {O} sign the form.",
    ],
}

HARD: list[tuple[str, str]] = [
    # coordination
    ("He and she left together.", "She and he left together."),
    ("Him and me went home.", "Her and me went home."),
    ("I saw him and her at the park.", "I saw her and him at the park."),
    ("His and her cars are red.", "Her and his cars are red."),
    ("He took his or her seat.", "She took her or his seat."),
    ("Every student must bring his or her book.", "Every student must bring her or his book."),
    ("The book is his or hers.", "The book is hers or his."),
    ("That car is his, not hers.", "That car is hers, not his."),
    ("Is this pen hers or his?", "Is this pen his or hers?"),
    ("The king and queen waved.", "The queen and king waved."),
    ("Brothers and sisters, welcome.", "Sisters and brothers, welcome."),
    ("Ladies and gentlemen, welcome.", "Gentlemen and ladies, welcome."),
    ("He thanked her and her husband.", "She thanked him and his wife."),
    # questions
    ("Did he tell her?", "Did she tell him?"),
    ("Is that her dog or his?", "Is that his dog or hers?"),
    ("Whose book is this, his or hers?", "Whose book is this, hers or his?"),
    ("Where did she put her keys?", "Where did he put his keys?"),
    ("Has he met his new boss?", "Has she met her new boss?"),
    ("Why would she hurt herself?", "Why would he hurt himself?"),
    ("Who made her cry?", "Who made him cry?"),
    # quotes
    ("\u201cI love her,\u201d he said.", "\u201cI love him,\u201d she said."),
    ("\"She's here,\" said the waiter.", "\"He's here,\" said the waitress."),
    ("He called it \u2018his masterpiece\u2019.", "She called it \u2018her masterpiece\u2019."),
    ("She wrote \"her own story\" in a week.", "He wrote \"his own story\" in a week."),
    ("The actor said, \"He is my hero.\"", "The actress said, \"She is my heroine.\""),
    # contractions
    ("She's tall and he's short.", "He's tall and she's short."),
    ("He's been here before.", "She's been here before."),
    ("She'd rather stay.", "He'd rather stay."),
    ("He'll call her tomorrow.", "She'll call him tomorrow."),
    ("She isn't his sister.", "He isn't her brother."),
    ("He wasn't sure she'd come.", "She wasn't sure he'd come."),
    ("She won't let him go.", "He won't let her go."),
    # "her" in ambiguous-looking contexts
    ("I gave her book to her.", "I gave his book to him."),
    ("I watched her brother dance.", "I watched his sister dance."),
    ("I love her smile.", "I love his smile."),
    ("I saw her very old dog.", "I saw his very old dog."),
    ("I bought her a present.", "I bought him a present."),
    ("For her, it was fine.", "For him, it was fine."),
    ("Her, I trust.", "Him, I trust."),
    ("I like her best.", "I like him best."),
    ("She felt her hand tremble.", "He felt his hand tremble."),
    ("He hurt her feelings.", "She hurt his feelings."),
    ("They named her daughter Anna.", "They named his son Anna."),
    # mixed and long
    ("The queen herself said she would come.", "The king himself said he would come."),
    ("My uncle told his wife that he loves her.", "My aunt told her husband that she loves him."),
    ("Her father and his mother are old friends.", "His mother and her father are old friends."),
    ("The boy gave the girl his ball.", "The girl gave the boy her ball."),
    ("Mr. Smith said his daughter is a policewoman.",
     "Ms. Smith said her son is a policeman."),
    ("The spokeswoman said the chairman would resign.",
     "The spokesman said the chairwoman would resign."),
    ("HE TOLD HER HIS NAME.", "SHE TOLD HIM HER NAME."),
    ("She's the actress who played the queen.", "He's the actor who played the king."),
    ("His grandmother's stepson is her nephew.", "Her grandfather's stepdaughter is his niece."),
    ("The men's team beat the women's team.", "The women's team beat the men's team."),
    ("The waitresses' tips were shared.", "The waiters' tips were shared."),
    ("My ex-boyfriend's father-in-law came.", "My ex-girlfriend's mother-in-law came."),
    ("Her great-grandmother was a duchess.", "His great-grandfather was a duke."),
    # written after the swapper was tuned, as a check on unseen sentences
    ("Let her speak!", "Let him speak!"),
    ("Nobody saw her coming.", "Nobody saw him coming."),
    ("I watched her play the piano.", "I watched him play the piano."),
    ("The doctor told her to rest.", "The doctor told him to rest."),
    ("We drove her home after the party.", "We drove him home after the party."),
    ("They sold her home last year.", "They sold his home last year."),
    ("She asked her brother to help her.", "He asked his sister to help him."),
    ("Was it hers or his that broke?", "Was it his or hers that broke?"),
    ("I think that's hers.", "I think that's his."),
    ("He introduced himself to her parents.", "She introduced herself to his parents."),
    ("The girl's father thanked the boys' mother.",
     "The boy's mother thanked the girls' father."),
    ("\"Is he your husband?\" she asked.", "\"Is she your wife?\" he asked."),
    ("She'll make her own decisions.", "He'll make his own decisions."),
    ("I heard her call my name.", "I heard him call my name."),
    ("Did anyone see her leave the building?", "Did anyone see him leave the building?"),
    ("His wife's brother is a fireman.", "Her husband's sister is a firewoman."),
    ("Her majesty the queen arrived.", "His majesty the king arrived."),
    ("Her ex-husband remarried.", "His ex-wife remarried."),
    ("The bride and groom danced.", "The groom and bride danced."),
    ("I wish her luck.", "I wish him luck."),
    ("I owe her money.", "I owe him money."),
    ("A friend of his came over.", "A friend of hers came over."),
    ("The fault is entirely his.", "The fault is entirely hers."),
    ("His were the best results.", "Hers were the best results."),
    ("They found her guilty.", "They found him guilty."),
    ("We should let her decide.", "We should let him decide."),
    ("I'll see her off at the airport.", "I'll see him off at the airport."),
]

NEVER: list[str] = [
    "History shows that German human managers in Manchester command respect.",
    "Sherlock Holmes solved the case.",
    "The shaman, the Roman and the Norman ate a tamale.",
    "It's a man-made lake.",
    "The job took two hundred man-hours.",
    "Mankind needs manpower to open the manhole.",
    "The freshman asked the ombudsman about the chairperson.",
    "There is a host of problems with the master plan.",
    "Praise the Lord.",
    "Hermione ate sherbet and Hershey bars here with Herman.",
    "The person asked the assistant about the season.",
    "They said their parents would come.",
    "The manager commanded the humane treatment of animals.",
    "The mandate was manual and many found it annoying.",
    "We watched the Ottoman history documentary.",
    "Heroism and heresy are different things.",
    "They sell seashells.",
    "The children played in the hall.",
    "My sibling is a doctor.",
    "Everyone left the room.",
    "The hotel manager sent flowers.",
    "Hemingway wrote about the sea.",
    "The Mandarin speakers met in Germany.",
    "The chemist mentioned the ammonia.",
    "Sonic the hedgehog is fast.",
    "The dalmatian barked at the postal van.",
    "Walkman players were popular.",
    "The all-expert panel was criticised.",
    "The teacher thanked the students.",
    "Miss you!",
    "The amendment passed.",
    "I missed the bus this morning.",
    "Their daughterboard failed.",
    "The ladybug sat on the leaf.",
    "The kingfisher flew away.",
    "They were making progress.",
    "The wolf howled.",
    "The mission was a success.",
    "The odd remark was noted.",
    "The human resources team hired a person.",
]


def _article(word: str) -> str:
    """ "a" or "an" by the sound of `word` (written for the words of the list)."""
    low = word.lower()
    if low.startswith(("heir", "hour", "honest")):
        return "an"
    if low.startswith(("uni", "eu", "one")):
        return "a"
    return "an" if low[:1] in "aeiou" else "a"


def _title(word: str) -> str:
    return word[:1].upper() + word[1:]


def _fill(frame: str, forms: dict[str, str]) -> str:
    text = frame
    for key, value in forms.items():
        text = text.replace("{" + key + "_}", _title(value)).replace("{" + key + "}", value)
    return text


def _pronoun_rows() -> Iterator[dict[str, str]]:
    for category, frames in FRAMES.items():
        for frame in frames:
            male, female = _fill(frame, MALE), _fill(frame, FEMALE)
            yield {"original": male, "expected": female, "category": category}
            yield {"original": female, "expected": male, "category": category}


ADJECTIVES = {
    "male", "female", "masculine", "feminine", "paternal", "maternal", "fatherly", "motherly",
    "brotherly", "sisterly", "manly", "womanly", "boyish", "girlish", "gentlemanly",
    "ladylike",
}
ABSTRACT = {
    "fatherhood", "motherhood", "manhood", "womanhood", "boyhood", "girlhood", "brotherhood",
    "sisterhood", "paternity", "maternity", "masculinity", "femininity", "menswear",
    "womenswear",
}
# Words that a title-case frame would put before a name, where they are titles.
NO_NAME_FRAME = {"sir", "madam", "dame", "lord", "mr", "mr.", "ms",
                 "ms.", "mrs", "mrs.", "miss", "ma'am", "ma\u2019am"}


def _plural(word: str) -> bool:
    return word.endswith(("men", "people", "children", "ren")) or (
        word.endswith("s") and not word.endswith(("ss", "ess", "ous", "us"))
        and word not in {"bros", "sis", "marquis"}
    )


def _word_frames(word: str, other: str, index: int) -> Iterator[tuple[str, str, str]]:
    """(original, expected, category) frames of one word -> counterpart."""
    if word.lower() in ADJECTIVES:
        yield f"It was a {word} gesture.", f"It was a {other} gesture.", "words_singular"
        yield (f"{_title(word)} traits were noted.", f"{_title(other)} traits were noted.",
               "words_capitalised")
        if word in ("male", "female"):
            yield (f"The {word} arrived late.", f"The {other} arrived late.", "words_singular")
        return
    if word.lower() in ABSTRACT:
        yield (f"They talked about {word} for hours.", f"They talked about {other} for hours.",
               "words_singular")
        yield (f"{_title(word)} changed everything.", f"{_title(other)} changed everything.",
               "words_capitalised")
        return
    plural = _plural(word)
    category = "words_plural" if plural else "words_singular"
    yield f"I met the {word} yesterday.", f"I met the {other} yesterday.", category
    yield f"The {word} arrived late.", f"The {other} arrived late.", category
    if plural:
        tail = "'" if word.endswith("s") else "'s"
        tail_other = "'" if other.endswith("s") else "'s"
        yield (f"The {word}{tail} car is red.", f"The {other}{tail_other} car is red.",
               "words_possessive")
        yield (f"{_title(word)} arrived late.", f"{_title(other)} arrived late.",
               "words_capitalised")
        yield (f"Two {word} were waiting.", f"Two {other} were waiting.", "words_plural")
    else:
        yield f"The {word}'s car is red.", f"The {other}'s car is red.", "words_possessive"
        yield (f"I saw {_article(word)} {word} there.", f"I saw {_article(other)} {other} there.",
               "words_article")
        yield (f"{_title(_article(word))} {word} waved.",
               f"{_title(_article(other))} {other} waved.", "words_capitalised")
    if index % 4 == 0:
        yield (f"THE {word.upper()} IS HERE.", f"THE {other.upper()} IS HERE.", "words_upper")


def _cased(word: str) -> str:
    """Nationality words are written with a capital (Englishman, Frenchwomen)."""
    nations = ("english", "french", "irish", "scots", "dutch", "welsh")
    return _title(word) if word.startswith(nations) else word


def _word_rows() -> Iterator[dict[str, str]]:
    data = json.loads(WORDS.read_text(encoding="utf-8"))
    directions: list[tuple[str, str]] = []
    for male, female, _ in data["pairs"]:
        directions += [(male, female), (female, male)]
    directions += [(f, m) for f, m, _ in data["to_male_only"]]
    directions += [(m, f) for m, f, _ in data["to_female_only"]]
    for index, (word, other) in enumerate(directions):
        if word in NO_NAME_FRAME or other in NO_NAME_FRAME:
            continue
        word, other = _cased(word), _cased(other)
        for original, expected, category in _word_frames(word, other, index):
            yield {"original": original, "expected": expected, "category": category}
    for male, female, neutral in data["pairs"]:
        if neutral is None or male in NO_NAME_FRAME or male in ADJECTIVES | ABSTRACT:
            continue
        for word in (male, female):
            if word == neutral:
                continue
            yield {"original": f"I met the {word} yesterday.",
                   "expected": f"I met the {neutral} yesterday.",
                   "category": "words_neutral", "target": "neutral"}


TITLES: list[tuple[str, str]] = [
    ("Mr. Smith arrived.", "Ms. Smith arrived."), ("Ms. Smith arrived.", "Mr. Smith arrived."),
    ("Mrs. Smith arrived.", "Mr. Smith arrived."), ("Miss Jones sang.", "Mr. Jones sang."),
    ("Mr. and Mrs. Smith came.", "Ms. and Mr. Smith came."),
    ("I met Mr. Brown today.", "I met Ms. Brown today."),
    ("Sir Elton John sang.", "Dame Elton John sang."),
    ("Dame Judi Dench acted.", "Sir Judi Dench acted."),
    ("Lady Byron wrote letters.", "Lord Byron wrote letters."),
    ("Lord Byron wrote poems.", "Lady Byron wrote poems."),
    ("Yes, sir.", "Yes, madam."), ("Yes, madam.", "Yes, sir."), ("Yes, ma'am.", "Yes, sir."),
    ("Yes, ma\u2019am.", "Yes, sir."),
    ("Thank you, sir, for coming.", "Thank you, madam, for coming."),
    ("The lady smiled.", "The gentleman smiled."), ("The gentleman smiled.", "The lady smiled."),
    ("MR. SMITH LEFT.", "MS. SMITH LEFT."), ("Mr Smith left.", "Ms Smith left."),
    ("King Charles spoke.", "Queen Charles spoke."),
    ("Uncle Bob cooked dinner.", "Aunt Bob cooked dinner."),
]


def build() -> list[dict[str, str]]:
    rows = list(_pronoun_rows())
    rows += list(_word_rows())
    rows += [{"original": a, "expected": b, "category": "titles"} for a, b in TITLES]
    for a, b in HARD:
        rows += [{"original": a, "expected": b, "category": "hard_cases"},
                 {"original": b, "expected": a, "category": "hard_cases"}]
    rows += [{"original": t, "expected": t, "category": "never_changed"} for t in NEVER]
    seen: set[tuple[str, str]] = set()
    unique = []
    for row in rows:
        row.setdefault("target", "opposite")
        key = (row["original"], row["target"])
        if key not in seen:
            seen.add(key)
            unique.append(row)
    return unique


def main() -> None:
    rows = build()
    with OUT.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["category"]] = counts.get(row["category"], 0) + 1
    print(len(rows), "pairs:", counts)


if __name__ == "__main__":
    main()
