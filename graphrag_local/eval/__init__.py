"""The evaluation harness (`graphrag-local eval ...`): the paper's activity-centred
question generation, answering a question set under several conditions, pairwise
LLM-as-judge win rates, extraction scoring against gold data, the chunk-size x gleanings
figure, and a report that gathers them. Everything runs offline on local models."""
