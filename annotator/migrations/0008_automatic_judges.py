# Automatic judges: an annotator account can be an LLM or a pipeline, with what produced it.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotator', '0003_campaign_missing_membership'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='AnnotatorProfile',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('is_automatic', models.BooleanField(default=False, help_text='An LLM or a pipeline, not a person.', verbose_name='automatic judge')),
                ('description', models.TextField(blank=True, help_text='Model, version, prompt: what produced its judgments.')),
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='annotator_profile', to=settings.AUTH_USER_MODEL)),
            ],
        ),
    ]
