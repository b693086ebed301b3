/*
 * pipeline: count the words of a text file with a three-stage pipeline of threads.
 *
 *   reader --lines (bounded 32)--> N workers --words (bounded 256)--> collector (main)
 *
 * The reader sends each line as a fixed-size message that owns a heap string; a worker
 * receives a line, splits it into lower-case words and sends each word on, again as a
 * heap string; the collector counts the words and prints lines, words, the ten most
 * frequent words and each worker's share.
 *
 * Ownership and close, which is what this example is about:
 * - A message owns its string. Whoever receives it frees it; a send that fails leaves
 *   the message with the sender, who frees it; a message still in a channel when its
 *   last receiver goes is freed by the channel's drop_msg.
 * - The normal end flows downstream: the reader drops its sender at end of file; the
 *   workers drain the lines, see ZC_CLOSED and drop their word senders; the collector
 *   sees ZC_CLOSED once the last worker has gone.
 * - An early end flows upstream: if the collector gives up (out of memory) it drops its
 *   receiver, the words left are freed, the workers' next sends fail with ZC_CLOSED, they
 *   drop their line receivers, and the reader's next send fails the same way.
 *
 * Usage: pipeline [FILE [WORKERS]]   (defaults: the text shipped in examples/data/, 3)
 */
#define _POSIX_C_SOURCE 200809L /* getline */

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zchan/block.h>
#include <zchan/mpmc.h>

#ifndef PIPELINE_DEFAULT_TEXT
#define PIPELINE_DEFAULT_TEXT "examples/data/channels.txt"
#endif

enum { MAX_WORKERS = 16, TOP = 10 };

typedef struct line_msg {
    size_t number; /* 1-based */
    char *text;    /* owned by the message: malloc'd, NUL-terminated, no newline */
} line_msg;

typedef struct word_msg {
    unsigned worker; /* which worker found it */
    char *word;      /* owned by the message: malloc'd, lower case */
} word_msg;

/* drop_msg callbacks: the channel calls them for each message no receiver will take. */
static void drop_line(void *msg, void *ctx) {
    (void)ctx;
    free(((line_msg *)msg)->text);
}

static void drop_word(void *msg, void *ctx) {
    (void)ctx;
    free(((word_msg *)msg)->word);
}

/* ---- stage 1: the reader ------------------------------------------------------------ */

typedef struct reader {
    FILE *file;
    zc_sender *lines; /* moved in: the reader drops it */
    size_t sent;      /* lines sent */
    bool failed;
} reader;

static void *reader_main(void *arg) {
    reader *rd = arg;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&buf, &cap, rd->file)) >= 0) {
        if (len > 0 && buf[len - 1] == '\n')
            buf[len - 1] = '\0';
        line_msg msg = {.number = rd->sent + 1, .text = buf};
        zc_status s = zc_send_blocking(rd->lines, &msg);
        if (s != ZC_OK) { /* ZC_CLOSED: nobody downstream any more; the line is still ours */
            rd->failed = s != ZC_CLOSED;
            break;
        }
        rd->sent++;
        buf = NULL; /* the channel owns it now; getline allocates the next one */
        cap = 0;
    }
    if (ferror(rd->file)) {
        perror("pipeline: reading");
        rd->failed = true;
    }
    free(buf);
    zc_sender_drop(rd->lines); /* end of input: closes the line channel */
    return NULL;
}

/* ---- stage 2: the workers ----------------------------------------------------------- */

typedef struct worker {
    pthread_t thread;
    unsigned id;
    zc_receiver *lines; /* this worker's clone */
    zc_sender *words;   /* this worker's clone */
    size_t lines_done;
    bool failed;
} worker;

/* The next word at or after *p: a run of ASCII letters, with apostrophes inside ("don't").
 * Returns its start and sets *len, or returns NULL at the end of the line. */
static const char *next_word(const char **p, size_t *len) {
    const char *s = *p;
    while (*s && !isalpha((unsigned char)*s))
        s++;
    if (*s == '\0')
        return NULL;
    const char *e = s;
    while (isalpha((unsigned char)*e) || (*e == '\'' && isalpha((unsigned char)e[1])))
        e++;
    *p = e;
    *len = (size_t)(e - s);
    return s;
}

/* Send each word of text on; false if the words channel closed or memory ran out. */
static bool send_words(worker *wk, const char *text) {
    const char *p = text, *start;
    size_t len;
    while ((start = next_word(&p, &len)) != NULL) {
        word_msg msg = {.worker = wk->id, .word = malloc(len + 1)};
        if (msg.word == NULL) {
            wk->failed = true;
            return false;
        }
        for (size_t i = 0; i < len; i++)
            msg.word[i] = (char)tolower((unsigned char)start[i]);
        msg.word[len] = '\0';
        if (zc_send_blocking(wk->words, &msg) != ZC_OK) {
            free(msg.word); /* not sent: still ours */
            return false;
        }
    }
    return true;
}

static void *worker_main(void *arg) {
    worker *wk = arg;
    line_msg line;
    while (zc_recv_blocking(wk->lines, &line) == ZC_OK) { /* until closed and drained */
        bool ok = send_words(wk, line.text);
        free(line.text);
        if (!ok)
            break;
        wk->lines_done++;
    }
    /* If this worker stopped early and is the last one, this frees the lines left and
     * makes the reader's next send fail. */
    zc_receiver_drop(wk->lines);
    zc_sender_drop(wk->words);
    return NULL;
}

/* ---- stage 3: the collector --------------------------------------------------------- */

typedef struct entry {
    char *word; /* NULL: free slot */
    size_t count;
} entry;

/* Word counts: open addressing, linear probing, power-of-two size, at most 3/4 full. */
typedef struct table {
    entry *slots;
    size_t size, used;
} table;

static size_t hash(const char *s) {
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (size_t)h;
}

static entry *find_slot(entry *slots, size_t size, const char *word) {
    size_t i = hash(word) & (size - 1);
    while (slots[i].word && strcmp(slots[i].word, word) != 0)
        i = (i + 1) & (size - 1);
    return &slots[i];
}

static bool grow(table *t) {
    size_t size = t->size ? t->size * 2 : 1024;
    entry *slots = calloc(size, sizeof *slots);
    if (slots == NULL)
        return false;
    for (size_t i = 0; i < t->size; i++)
        if (t->slots[i].word)
            *find_slot(slots, size, t->slots[i].word) = t->slots[i];
    free(t->slots);
    t->slots = slots;
    t->size = size;
    return true;
}

/* Count one occurrence of word, taking ownership of it. False if out of memory (word is
 * freed). */
static bool count_word(table *t, char *word) {
    if (4 * (t->used + 1) > 3 * t->size && !grow(t)) {
        free(word);
        return false;
    }
    entry *e = find_slot(t->slots, t->size, word);
    if (e->word) {
        free(word);
    } else {
        e->word = word;
        t->used++;
    }
    e->count++;
    return true;
}

static int by_count_then_word(const void *a, const void *b) {
    const entry *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->word, y->word);
}

static double percent(size_t part, size_t whole) {
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : PIPELINE_DEFAULT_TEXT;
    unsigned nworkers = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 3;
    if (argc > 3 || nworkers < 1 || nworkers > MAX_WORKERS) {
        fprintf(stderr, "usage: pipeline [FILE [WORKERS (1-%d)]]\n", MAX_WORKERS);
        return 2;
    }
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        fprintf(stderr, "pipeline: %s: %s\n", path, strerror(errno));
        return 1;
    }

    zc_sender *lines_tx, *words_tx;
    zc_receiver *lines_rx, *words_rx;
    zc_config line_cfg = {.elem_size = sizeof(line_msg), .drop_msg = drop_line};
    zc_config word_cfg = {.elem_size = sizeof(word_msg), .drop_msg = drop_word};
    if (zc_bounded(32, &line_cfg, &lines_tx, &lines_rx) != ZC_OK ||
        zc_bounded(256, &word_cfg, &words_tx, &words_rx) != ZC_OK) {
        fprintf(stderr, "pipeline: could not make the channels\n");
        return 1;
    }

    /* Start the stages; each thread gets handles of its own. */
    worker workers[MAX_WORKERS];
    unsigned started = 0;
    for (; started < nworkers; started++) {
        worker *wk = &workers[started];
        *wk = (worker){.id = started,
                       .lines = zc_receiver_clone(lines_rx),
                       .words = zc_sender_clone(words_tx)};
        if (pthread_create(&wk->thread, NULL, worker_main, wk) != 0) {
            zc_receiver_drop(wk->lines);
            zc_sender_drop(wk->words);
            break;
        }
    }
    reader rd = {.file = file, .lines = lines_tx};
    pthread_t reader_thread;
    bool reading = started > 0 && pthread_create(&reader_thread, NULL, reader_main, &rd) == 0;
    if (!reading)
        zc_sender_drop(lines_tx); /* no reader: close the lines so the workers end */
    zc_receiver_drop(lines_rx);   /* main keeps only the end it uses: words_rx */
    zc_sender_drop(words_tx);

    /* Collect until the last worker has dropped its sender. */
    table counts = {0};
    size_t words = 0, per_worker[MAX_WORKERS] = {0};
    bool out_of_memory = false;
    word_msg msg;
    while (zc_recv_blocking(words_rx, &msg) == ZC_OK) {
        per_worker[msg.worker]++;
        words++;
        if (!count_word(&counts, msg.word)) {
            fprintf(stderr, "pipeline: out of memory counting words\n");
            out_of_memory = true;
            break;
        }
    }
    /* Normally the channel is closed and drained here; after an early stop this frees
     * the words left and makes the workers' next sends fail, which stops them. */
    zc_receiver_drop(words_rx);

    if (reading)
        pthread_join(reader_thread, NULL);
    size_t lines_done = 0;
    bool failed = !reading || started < nworkers || out_of_memory || rd.failed;
    for (unsigned i = 0; i < started; i++) {
        pthread_join(workers[i].thread, NULL);
        lines_done += workers[i].lines_done;
        failed |= workers[i].failed;
    }
    fclose(file);

    /* The summary. Compact the table and sort it by count. */
    size_t distinct = 0;
    for (size_t i = 0; i < counts.size; i++)
        if (counts.slots[i].word)
            counts.slots[distinct++] = counts.slots[i];
    if (distinct > 0)
        qsort(counts.slots, distinct, sizeof(entry), by_count_then_word);
    printf("%s\n%zu lines, %zu words, %zu distinct\n\ntop %d words:\n", path, rd.sent, words,
           distinct, TOP);
    for (size_t i = 0; i < distinct && i < TOP; i++)
        printf("  %2zu. %-16s %6zu\n", i + 1, counts.slots[i].word, counts.slots[i].count);
    printf("\nper worker:\n");
    for (unsigned i = 0; i < started; i++)
        printf("  worker %u: %6zu lines (%5.1f%%)  %7zu words (%5.1f%%)\n", i,
               workers[i].lines_done, percent(workers[i].lines_done, rd.sent), per_worker[i],
               percent(per_worker[i], words));
    for (size_t i = 0; i < distinct; i++)
        free(counts.slots[i].word);
    free(counts.slots);

    if (lines_done != rd.sent) {
        fprintf(stderr, "pipeline: %zu lines sent but %zu handled\n", rd.sent, lines_done);
        failed = true;
    }
    if (failed)
        fprintf(stderr, "pipeline: stopped early\n");
    return failed ? 1 : 0;
}
