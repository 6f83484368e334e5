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
