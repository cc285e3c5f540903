import torch
import torch.nn as nn

from .modules import MemoryAttention


class QueryDecoder(nn.Module):
    def __init__(self, dim=8, depth=2):
        super().__init__()
        self.memory_to_query = nn.ModuleList([MemoryAttention(dim) for _ in range(depth)])

    def memory_forward(self, q, memory, queried, iter_num):
        q_input = q[queried].unsqueeze(1)
        kv = memory[queried]
        mask = torch.zeros(kv.shape[:2], dtype=torch.bool, device=kv.device)
        updated = self.memory_to_query[iter_num](q=q_input, k=kv, v=kv, mask=mask)
        q = q.clone()
        q[queried] = updated.squeeze(1)
        return q

    def forward(self, q, memory, queried):
        for i in range(len(self.memory_to_query)):
            q = self.memory_forward(q, memory, queried, i)
        return q
