from annotator.models import Conversation, Turn


def assigned_conversation(user) -> Conversation:
    return Conversation.objects.filter(assignments__annotator=user).order_by("pk").first()


def unassigned_conversation(user) -> Conversation:
    return Conversation.objects.exclude(assignments__annotator=user).order_by("pk").first()


def free_span(conversation, annotator) -> tuple[Turn, int, int]:
    """A system turn and two words of it that carry no nugget of `annotator` yet."""
    from scoring.words import tokenise

    for turn in conversation.turns.filter(role="S").order_by("position"):
        taken = set()
        for n in turn.nuggets.filter(annotator=annotator):
            taken.update(range(n.start_word, n.end_word + 1))
        words = len(tokenise(turn.text))
        for start in range(words - 1):
            if start not in taken and start + 1 not in taken:
                return turn, start, start + 1
    raise AssertionError("no free words")


def count_number_reads(monkeypatch) -> list[int]:
    """Count the calls of the one reader of vector numbers (`rules.vectors.exact_number` and
    `parse_number`), wherever a module imported it: [calls], growing as numbers are read."""
    import sys

    from annotator.rules import vectors

    calls = [0]
    for name in ("exact_number", "parse_number"):
        original = getattr(vectors, name)

        def counted(*args, _original=original, **kwargs):
            calls[0] += 1
            return _original(*args, **kwargs)

        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith("annotator") and getattr(module, name, None) is original:
                monkeypatch.setattr(module, name, counted)
    return calls
