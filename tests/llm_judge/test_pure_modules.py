"""The prompt and the answer reader are plain Python: they import with Django made unimportable."""

from tests.scoring.test_scoring_without_django import _loaded


def test_the_prompt_and_the_answer_reader_import_with_django_made_unimportable():
    call = ("from annotator.llm_judge.prompt import *; from annotator.llm_judge.answers import read_answer; "
            "t = TopicSpec('M1', '', 'Movies', (GradeSpec('L1', 1.0),), ()); "
            "read_answer('{\"entities\": []}', 'stop', t, 'a b', lambda s, e: ())")
    loaded = _loaded(["annotator.llm_judge.prompt", "annotator.llm_judge.answers"], ("numpy", "scoring", "annotator"), call)
    assert loaded == {"django": [], "outside": []}
