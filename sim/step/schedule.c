/*
 * Task order of each pipeline stage, as Megatron-LM's schedules.py runs them
 * (forward_backward_pipelining_without_interleaving / _with_interleaving) and GPipe
 * (Huang et al., NeurIPS 2019: all forwards, then all backwards).
 */
#include "step/step.h"

static struct ts_task task(enum ts_task_kind kind, int chunk, int micro)
{
    struct ts_task t;
    t.kind = (uint8_t)kind;
    t.chunk = (uint8_t)chunk;
    t.micro = micro;
    return t;
}

/* Interleaved schedule: the i-th forward (or backward) of a stage, in groups of p
 * microbatches per chunk (Megatron-LM get_model_chunk_id). */
static struct ts_task interleaved_task(enum ts_task_kind kind, int p, int v, int i)
{
    int in_group = i % (p * v);
    int chunk = in_group / p;
    if (kind == TS_TASK_B)
        chunk = v - 1 - chunk;
    int micro = (i / (p * v)) * p + i % p;
    return task(kind, chunk, micro);
}

void ts_step_schedule(enum ts_schedule sched, int p, int v, int m, int stage, struct ts_task *order)
{
    int n = 0;
    switch (sched) {
    case TS_SCHED_GPIPE:
        for (int c = 0; c < v; c++)
            for (int j = 0; j < m; j++)
                order[n++] = task(TS_TASK_F, c, j);
        for (int c = v - 1; c >= 0; c--)
            for (int j = 0; j < m; j++)
                order[n++] = task(TS_TASK_B, c, j);
        break;
    case TS_SCHED_1F1B:
    case TS_SCHED_INTERLEAVED: {
        int total = m * v;
        int warmup = sched == TS_SCHED_1F1B ? p - stage - 1 : 2 * (p - stage - 1) + (v - 1) * p;
        /* Megatron-LM's interleaved schedule runs all forwards, then all backwards, when
         * the microbatches are exactly p (all_warmup_microbatches). */
        if (sched == TS_SCHED_INTERLEAVED && m == p)
            warmup = total;
        if (warmup > total)
            warmup = total;
        int steady = total - warmup;
        int f = 0, b = 0;
        bool inter = sched == TS_SCHED_INTERLEAVED;
        for (; f < warmup; f++)
            order[n++] = inter ? interleaved_task(TS_TASK_F, p, v, f) : task(TS_TASK_F, 0, f);
        for (int i = 0; i < steady; i++) {
            order[n++] = inter ? interleaved_task(TS_TASK_F, p, v, f) : task(TS_TASK_F, 0, f);
            f++;
            order[n++] = inter ? interleaved_task(TS_TASK_B, p, v, b) : task(TS_TASK_B, 0, b);
            b++;
        }
        for (; b < total; b++)
            order[n++] = inter ? interleaved_task(TS_TASK_B, p, v, b) : task(TS_TASK_B, 0, b);
        break;
    }
    case TS_SCHED_COUNT:
        break;
    }
    TS_ASSERT(n == 2 * m * v, "schedule produced %d tasks, expected %d", n, 2 * m * v);
}
