# train a tiny character-level model on the made-up text that tests/programs/test_programs.py writes
# (data/tiny_char, in the format of nanoGPT's data/shakespeare_char/prepare.py), in the manner of
# nanoGPT's config/train_shakespeare_char.py: a few iterations in seconds on a CPU.
# Written for these tests (not a copy of a nanoGPT file).

out_dir = 'out-tiny-char'
eval_interval = 5
eval_iters = 2
log_interval = 1

always_save_checkpoint = True

wandb_log = False

dataset = 'tiny_char'
gradient_accumulation_steps = 1
batch_size = 8
block_size = 32

n_layer = 2
n_head = 2
n_embd = 64
dropout = 0.0

learning_rate = 1e-3
max_iters = 10
lr_decay_iters = 10
min_lr = 1e-4
beta2 = 0.99

warmup_iters = 2

device = 'cpu'
compile = False
