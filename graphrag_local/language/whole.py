"""Whether a question asks of the collection as a whole and of nothing in it: "What are the
main themes?", "What are the main themes of these podcasts?", "What is this book about?",
"Quels sont les thèmes principaux de ces documents ?". Every word of such a question is a
word of `WHOLE_WORDS`: what asks, what the collection is (its kind of documents), what an
overview of it is (themes, topics, a summary). No word of it names a thing the documents
speak of.

The sentences nearest such a question are near its frame only, not near a topic. Over the
podcast transcripts "What are the main themes?" led with a guest's talk of Douglas Adams's
and Ridley Scott's science fiction (its "themes": selectivity 0.97, `themes.selectivity`;
seven episodes cited of ten) and "... of these podcasts?" with the episodes' sign-offs
("Thanks so much, Jaron, for being on the podcast."); over 24 Wikipedia articles "... of
these documents?" with three groups (selectivity 0.75, eight articles cited); in French,
Spanish, Russian and Japanese, which the embedder does not read, the same question measured
focus 0.8 to 1.0. Its answer is now the collection's groups by weight
(`themes.choose_themes`), as a question measured unfocused gets: five such phrasings cited
9 episodes each (7 to 10 before, 8.6 on average) and 10 articles each (8 to 10, 9.2). A
question that also names something ("... themes of the podcasts on AI?") is measured as
before.

Deliberately a list, in the languages of the support check and Chinese and Japanese: a
word not in it makes the question one that names something."""

from __future__ import annotations

from .tokens import tokens

WHOLE_WORDS = frozenset("""
what which whats are is was were be the a an of in on about across among from to for and or
this these those that all whole entire main key central major important principal primary
common recurring overall general big biggest most
theme themes topic topics subject subjects idea ideas issue issues point points message
messages takeaway takeaways thread threads motif motifs summary summarize summarise
overview gist content contents
do does did discuss discussed discusses cover covered covers talk talked talks deal dealt
deals with address addressed addresses mention mentioned say said tell told describe
described
collection corpus archive dataset
document documents text texts file files book books novel novels story stories tale tales
chapter chapters article articles paper papers report reports note notes page pages letter
letters email emails podcast podcasts episode episodes conversation conversations interview
interviews transcript transcripts
me us please give list can could would you briefly brief short s
quels quelles quel quelle sont est les le la l des de du ces ce cette dans en un une et
thèmes thème sujets sujet principaux principales principal principale idées
documents textes texte histoire histoires livre livres articles quoi parlent parle traite
traitent résumé résume résumez
cuáles cuál son es los las el la de del estos estas este esta en un una y
temas tema principales asuntos ideas documentos documento textos texto historia historias
libro libros artículos artículo qué tratan trata resumen resume resumir sobre
was welche welcher sind ist die der das den dem des diese dieser dieses in von über und
hauptthemen themen thema wichtigsten wichtigste dokumente dokumenten dokument texte
geschichte geschichten buch artikel worum geht es zusammenfassung fasse zusammen
каковы какие какова каков основные главные темы тема этих эти этого этой в о и что чём
чем документов документы документ текстов тексты текст книги книга истории история
статей статьи рассказывается
这些 这 文档 文件 的 主要 主题 是 什么 有 哪些 内容 讲 了 中 文本 故事 书
これら これ ら の 文書 主 主な テーマ は 何 です か 主要 ドキュメント 内容 について 話題
""".split())


def asks_of_whole(question: str) -> bool:
    """Whether every word of `question` is one of `WHOLE_WORDS` (and it has one)."""
    words = tokens(question)
    return bool(words) and all(w in WHOLE_WORDS for w in words)
