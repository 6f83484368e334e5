"""The campaign data model: what organisers set up and what gold annotators judge, one module
per part of a campaign's life, every model importable from here (`from annotator.models import
Campaign`), as Django and the rest of the app expect.

- `rule_checks`: the set-up rules (annotator.rules) as the models' field checks;
- `campaigns`: the campaign and its settings, members, guidelines, grades, topic types with their
  attribute sets, topics and runs;
- `conversations`: conversations, their turns, assignments;
- `ranked_lists`: web runs scored with GFR;
- `judgments`: entities, memberships, nuggets, turn labels, the history of every change,
  adjudication;
- `people`: annotators' profiles (a person or an automatic judge);
- `background_jobs`: what every background job records (`BackgroundJob`, abstract: its status,
  worker, heartbeat and cancel request), the tables of `jobs` and `harvests` built on it;
- `jobs`: import jobs and LLM judge runs with the answer cache;
- `harvests`: harvests from inside the app and where each harvested turn came from;
- `stored_figures`: the figures kept where a judgment is written, and each run's totals of them;
- `rows`: one plain row shape per model, for code that reads many rows without instances
  (imported from `annotator.models.rows`, not re-exported: they are not tables).

Each module imports only those above it in this list, so the files have no cycle.
"""

from annotator.models.campaigns import Campaign, CampaignMember, Guidelines, Grade, TopicType, AttributeSet, Topic, Run
from annotator.models.conversations import Conversation, Turn, Assignment
from annotator.models.ranked_lists import TopicDocument, RankedList, RankedListFigures
from annotator.models.judgments import TurnLabel, Entity, Membership, Nugget, AnnotationEvent, AdjudicationDecision
from annotator.models.people import AnnotatorProfile, is_automatic_judge
from annotator.models.background_jobs import BackgroundJob
from annotator.models.jobs import ImportJob, ImportJobFile, LlmAnswer, LlmJudgeRun
from annotator.models.harvests import HarvestRun, HarvestedAnswer
from annotator.models.stored_figures import StaleRunTotals, StoredFigures, StoredRunTotals

__all__ = [
    "Campaign", "CampaignMember", "Guidelines", "Grade", "TopicType", "AttributeSet", "Topic", "Run",
    "Conversation", "Turn", "Assignment", "TopicDocument", "RankedList", "RankedListFigures", "TurnLabel",
    "Entity", "Membership", "Nugget", "AnnotationEvent", "AdjudicationDecision", "AnnotatorProfile",
    "is_automatic_judge", "ImportJob", "ImportJobFile", "LlmAnswer", "LlmJudgeRun", "StoredFigures",
    "HarvestRun", "HarvestedAnswer", "BackgroundJob", "StoredRunTotals", "StaleRunTotals",
]
