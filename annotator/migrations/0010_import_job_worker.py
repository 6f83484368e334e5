from django.db import migrations, models


class Migration(migrations.Migration):
    # after the leaf of main when merged (0006_import_jobs -> 0009_ranked_lists): the lead renumbers
    dependencies = [("annotator", "0009_ranked_lists")]

    operations = [
        migrations.AddField(
            model_name="importjob",
            name="worker",
            field=models.CharField(
                blank=True, help_text="The process running it: host, pid and start time (annotator.interchange.imports.jobs)", max_length=300
            ),
        ),
        migrations.AddField(
            model_name="importjob",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, help_text="Last sign of life of that process", null=True),
        ),
    ]
