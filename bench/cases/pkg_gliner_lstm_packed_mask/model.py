import torch.nn as nn

from .encoder import LstmSeq2SeqEncoder


class TokenEncoder(nn.Module):
    def __init__(self, vocab=50, hidden=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.rnn = LstmSeq2SeqEncoder(hidden, hidden // 2)

    def forward(self, input_ids, attention_mask):
        words = self.embed(input_ids)
        return self.rnn(words, attention_mask)
