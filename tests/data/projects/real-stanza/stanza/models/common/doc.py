"""
Basic data structures
"""

import io
from itertools import repeat
import re
import json
import pickle
import warnings

from enum import Enum

import networkx as nx

from stanza.models.common.stanza_object import StanzaObject
from stanza.models.common.utils import misc_to_space_after, space_after_to_misc, misc_to_space_before, space_before_to_misc
from stanza.models.ner.utils import decode_from_bioes
from stanza.models.constituency import tree_reader
from stanza.models.coref.coref_chain import CorefMention, CorefChain, CorefAttachment

class MWTProcessingType(Enum):
    FLATTEN = 0 # flatten the current token into one ID instead of MWT
    PROCESS = 1 # process the current token as an MWT and expand it as such
    SKIP = 2 # do nothing on this token, simply increment IDs

multi_word_token_id = re.compile(r"([0-9]+)-([0-9]+)")
multi_word_token_misc = re.compile(r".*MWT=Yes.*")

MEXP = 'manual_expansion'
ID = 'id'
TEXT = 'text'
LEMMA = 'lemma'
UPOS = 'upos'
XPOS = 'xpos'
FEATS = 'feats'
HEAD = 'head'
DEPREL = 'deprel'
DEPS = 'deps'
MISC = 'misc'
NER = 'ner'
MULTI_NER = 'multi_ner'     # will represent tags from multiple NER models
START_CHAR = 'start_char'
END_CHAR = 'end_char'
TYPE = 'type'
SENTIMENT = 'sentiment'
CONSTITUENCY = 'constituency'
COREF_CHAINS = 'coref_chains'
LINE_NUMBER = 'line_number'
MORPHEMES = 'morphemes'

# keys of the CoNLL-U comments which are also attributes of a Sentence.
# TEXT, SENTIMENT, and CONSTITUENCY are comment keys as well
SENT_ID = 'sent_id'
DOC_ID = 'doc_id'
SPEAKER = 'speaker'

# field indices when converting the document to conll
FIELD_TO_IDX = {ID: 0, TEXT: 1, LEMMA: 2, UPOS: 3, XPOS: 4, FEATS: 5, HEAD: 6, DEPREL: 7, DEPS: 8, MISC: 9}
FIELD_NUM = len(FIELD_TO_IDX)

DEFAULT_OUTPUT_FIELDS = [ID, TEXT, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC, START_CHAR, END_CHAR, NER, MULTI_NER, MEXP, COREF_CHAINS, MORPHEMES]
NO_OFFSETS_OUTPUT_FIELDS = [ID, TEXT, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC, NER, MULTI_NER, MEXP, COREF_CHAINS, MORPHEMES]

# ---------------------------------------------------------------------------
# CoNLL-U comments
#
# A sentence in a CoNLL-U file can be preceded by comment lines, most of which
# are `# key = value` annotations.  A few of those keys are also attributes of
# a Sentence: `# sent_id = 3` is sentence.sent_id, `# sentiment = 2` is
# sentence.sentiment, and so on.
#
# The comments are the only copy of that data.  The attributes read and write
# them through the CommentList below, which is what keeps a sentence and its
# comments from disagreeing about the sentence's sent_id.
# ---------------------------------------------------------------------------

# `# key = value`, allowing for the spellings treebanks actually use, such as
# `#text=...`, and for keys with a space in them, such as `# newdoc id`
COMMENT_KEY_RE = re.compile(r"^#\s*([^=]+?)\s*=\s*(.*?)\s*$")

# a newline would end the comment, so it is escaped in a value which can
# contain one, such as a constituency tree
NEWLINE_ESCAPE = "*NL*"

def split_comment(line):
    """Split a comment line into (key, value)

    Returns (None, None) for a comment with no key, such as `# newpar`, or for
    a line which is not a comment at all.
    """
    match = COMMENT_KEY_RE.match(line)
    if match is None:
        return None, None
    return match.group(1), match.group(2)

def _parse_constituency(text):
    trees = tree_reader.read_trees(text.replace(NEWLINE_ESCAPE, "\n"))
    if len(trees) > 1:
        raise ValueError("Multiple constituency trees for one sentence: %s" % text)
    return trees[0]

def _format_constituency(tree):
    return str(tree).replace("\n", NEWLINE_ESCAPE).replace("\r", "")

class CommentField:
    """A comment key which is also an attribute of a Sentence

    parse turns the text of a comment into the value the attribute returns,
    and format turns a value assigned to the attribute back into comment text.
    A key with neither is passed through as the text of the comment.

    remove_if_falsy means assigning a falsy value drops the comment instead of
    writing `# speaker = None`.
    """
    def __init__(self, key, parse=None, format=None, remove_if_falsy=False):
        self.key = key
        self.parse = parse
        self.format = format
        self.remove_if_falsy = remove_if_falsy

    def parse_value(self, text):
        return text if self.parse is None else self.parse(text)

    def format_value(self, value):
        return str(value) if self.format is None else self.format(value)

COMMENT_FIELDS = {field.key: field for field in [
    CommentField(TEXT),
    CommentField(SENT_ID),
    CommentField(DOC_ID),
    CommentField(SPEAKER, remove_if_falsy=True),
    CommentField(SENTIMENT, parse=int),
    CommentField(CONSTITUENCY, parse=_parse_constituency, format=_format_constituency),
]}

class Comment:
    """A single CoNLL-U comment line

    A comment read from a file keeps the text it had, so that reading and
    writing a treebank does not reformat its comments.  A comment built from a
    value, which is what assigning to sentence.sent_id and friends does, is
    written in the canonical `# key = value` form.
    """
    __slots__ = ('_line', '_key', '_text', '_value')

    def __init__(self, line, key, text, value):
        self._line = line
        self._key = key
        self._text = text
        self._value = value

    @classmethod
    def from_line(cls, line):
        """Build a Comment from a comment line, adding the leading # if it is missing"""
        if isinstance(line, cls):
            return line
        line = line.strip()
        if not line.startswith("#"):
            line = "# " + line
        key, text = split_comment(line)
        field = COMMENT_FIELDS.get(key)
        # parsed now rather than on demand so that a broken annotation, such
        # as a constituency tree with unbalanced brackets, is reported when
        # the document is read rather than much later
        value = text if field is None else field.parse_value(text)
        return cls(line, key, text, value)

    @classmethod
    def from_value(cls, key, value):
        """Build the canonical comment for a key and an already typed value"""
        field = COMMENT_FIELDS.get(key)
        text = str(value) if field is None else field.format_value(value)
        return cls("# %s = %s" % (key, text), key, text, value)

    @property
    def key(self):
        """The key of this comment, or None for a comment such as `# newpar`"""
        return self._key

    @property
    def text(self):
        """The text after the = of this comment, unparsed"""
        return self._text

    @property
    def value(self):
        """The parsed value of this comment: an int sentiment, a Tree constituency, ..."""
        return self._value

    def __str__(self):
        return self._line

    def __repr__(self):
        return repr(self._line)

    def __eq__(self, other):
        if isinstance(other, Comment):
            return self._line == other._line
        return self._line == other

    def __hash__(self):
        return hash(self._line)

class CommentList:
    """The CoNLL-U comments attached to a Sentence

    Reads like a list of strings, so iterating, len(), indexing, and joining
    the comments into a block of text all work as they did when this was a
    plain list.

    Writes go through add / set / remove, which keep at most one comment per
    key.  Setting sentence.sent_id twice therefore leaves one `# sent_id`
    line, in the position the first one had.
    """
    __slots__ = ('_comments',)

    def __init__(self, comments=None):
        self._comments = []
        if comments is not None:
            self.extend(comments)

    def add(self, comment):
        """Add a comment

        Accepts a string, with or without the leading #, or a Comment.

        A comment whose key is a CommentField replaces the existing comment
        with that key, since a sentence can only have one sent_id.  Any other
        key is appended as it stands, so that a treebank which uses a key
        more than once doesn't lose a line just by being read.
        """
        comment = Comment.from_line(comment)
        if comment.key in COMMENT_FIELDS:
            self._replace(comment)
        else:
            self._comments.append(comment)

    # so that code which treated this as a list keeps working
    append = add

    def extend(self, comments):
        for comment in comments:
            self.add(comment)

    def set(self, key, value):
        """Set the comment for a key from a value, replacing any existing comment with that key

        A value of None removes the comment instead.
        """
        field = COMMENT_FIELDS.get(key)
        if value is None or (field is not None and field.remove_if_falsy and not value):
            self.remove(key)
        else:
            self._replace(Comment.from_value(key, value))

    def _replace(self, comment):
        """Put a comment where the existing comment with its key was, dropping any others"""
        replaced = False
        keep = []
        for existing in self._comments:
            if existing.key != comment.key:
                keep.append(existing)
            elif not replaced:
                keep.append(comment)
                replaced = True
        if not replaced:
            keep.append(comment)
        self._comments = keep

    def remove(self, comment):
        """Remove comments, by key or by exact text.  Returns how many were removed

        `remove("speaker")`, `remove("# speaker")` and `remove("# speaker =
        Bob")` all drop the speaker comment, whatever its value.  A comment
        with no key, such as `# newpar`, is matched on its text instead.

        Unlike list.remove, removing something which is not there is not an
        error.  The result is 0.
        """
        key, line = self._target(comment)
        if key is not None:
            keep = [x for x in self._comments if x.key != key]
        else:
            keep = [x for x in self._comments if x != line]
        removed = len(self._comments) - len(keep)
        self._comments = keep
        return removed

    def _target(self, comment):
        """Work out whether a remove() argument names a key or a whole comment

        Returns (key, None) or (None, line).
        """
        if isinstance(comment, Comment):
            return comment.key, str(comment)
        line = comment.strip()
        if not line.startswith("#"):
            line = "# " + line
        key, _ = split_comment(line)
        if key is not None:
            return key, None
        # no = in the argument, so it is either a bare key, such as
        # remove("speaker"), or a keyless comment, such as remove("# newpar")
        bare = line[1:].strip()
        if any(x.key == bare for x in self._comments):
            return bare, None
        return None, line

    def get(self, key, default=None):
        """The value of the comment with this key: an int sentiment, a Tree constituency, ..."""
        for comment in self._comments:
            if comment.key == key:
                return comment.value
        return default

    def get_line(self, key, default=None):
        """The comment with this key, as the line which will be written out"""
        for comment in self._comments:
            if comment.key == key:
                return str(comment)
        return default

    def has(self, key):
        """Whether there is a comment with this key"""
        return any(comment.key == key for comment in self._comments)

    def keys(self):
        """The keys of the comments which have one, in order"""
        return [comment.key for comment in self._comments if comment.key is not None]

    def clear(self):
        self._comments = []

    def copy(self):
        new_comments = CommentList()
        # Comment is immutable, so the copy can share them
        new_comments._comments = list(self._comments)
        return new_comments

    def __len__(self):
        return len(self._comments)

    def __iter__(self):
        return (str(comment) for comment in self._comments)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return [str(comment) for comment in self._comments[idx]]
        return str(self._comments[idx])

    def __setitem__(self, idx, comment):
        self._comments[idx] = Comment.from_line(comment)

    def __delitem__(self, idx):
        del self._comments[idx]

    def __contains__(self, comment):
        return any(existing == comment for existing in self._comments)

    def __eq__(self, other):
        if isinstance(other, CommentList):
            return self._comments == other._comments
        if isinstance(other, (list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    def __bool__(self):
        return bool(self._comments)

    def __repr__(self):
        # prints as the list of strings this used to be, rather than as the
        # block of comment lines, which is what "\n".join(comments) is for
        return repr(list(self))


class DocJSONEncoder(json.JSONEncoder):
    def default(self, obj):
        if isinstance(obj, CorefMention):
            return obj.__dict__
        if isinstance(obj, CorefAttachment):
            return obj.to_json()
        return json.JSONEncoder.default(self, obj)

class RestrictedUnpickler(pickle.Unpickler):
    # Stanza Document serialization only ever produces tuples, lists, dicts,
    # and scalar primitives. No custom classes are needed.
    SAFE_CLASSES = frozenset({
        ('builtins', 'tuple'),
        ('builtins', 'list'),
        ('builtins', 'dict'),
    })

    def find_class(self, module, name):
        if (module, name) not in self.SAFE_CLASSES:
            raise pickle.UnpicklingError(
                f"Blocked unsafe global: {module}.{name}"
            )
        return super().find_class(module, name)

class Document(StanzaObject):
    """ A document class that stores attributes of a document and carries a list of sentences.
    """

    def __init__(self, sentences, text=None, comments=None, empty_sentences=None):
        """ Construct a document given a list of sentences in the form of lists of CoNLL-U dicts.

        Args:
            sentences: a list of sentences, which being a list of token entry, in the form of a CoNLL-U dict.
            text: the raw text of the document.
            comments: A list of list of strings to use as comments on the sentences, either None or the same length as sentences
        """
        self._sentences = []
        self._lang = None
        self._text = text
        self._num_tokens = 0
        self._num_words = 0

        self._process_sentences(sentences, comments, empty_sentences)
        self._ents = []
        self._coref = []
        if self._text is not None:
            self.build_ents()
            self.mark_whitespace()

    def mark_whitespace(self):
        for sentence in self._sentences:
            # TODO: pairwise, once we move to minimum 3.10
            for prev_token, next_token in zip(sentence.tokens[:-1], sentence.tokens[1:]):
                whitespace = self._text[prev_token.end_char:next_token.start_char]
                prev_token.spaces_after = whitespace
        for prev_sentence, next_sentence in zip(self._sentences[:-1], self._sentences[1:]):
            prev_token = prev_sentence.tokens[-1]
            next_token = next_sentence.tokens[0]
            whitespace = self._text[prev_token.end_char:next_token.start_char]
            prev_token.spaces_after = whitespace
        if len(self._sentences) > 0 and len(self._sentences[-1].tokens) > 0:
            final_token = self._sentences[-1].tokens[-1]
            whitespace = self._text[final_token.end_char:]
            final_token.spaces_after = whitespace
        if len(self._sentences) > 0 and len(self._sentences[0].tokens) > 0:
            first_token = self._sentences[0].tokens[0]
            whitespace = self._text[:first_token.start_char]
            first_token.spaces_before = whitespace


    @property
    def lang(self):
        """ Access the language of this document """
        return self._lang

    @lang.setter
    def lang(self, value):
        """ Set the language of this document """
        self._lang = value

    @property
    def text(self):
        """ Access the raw text for this document. """
        return self._text

    @text.setter
    def text(self, value):
        """ Set the raw text for this document. """
        self._text = value

    @property
    def sentences(self):
        """ Access the list of sentences for this document. """
        return self._sentences

    @sentences.setter
    def sentences(self, value):
        """ Set the list of tokens for this document. """
        self._sentences = value

    @property
    def num_tokens(self):
        """ Access the number of tokens for this document. """
        return self._num_tokens

    @num_tokens.setter
    def num_tokens(self, value):
        """ Set the number of tokens for this document. """
        self._num_tokens = value

    @property
    def num_words(self):
        """ Access the number of words for this document. """
        return self._num_words

    @num_words.setter
    def num_words(self, value):
        """ Set the number of words for this document. """
        self._num_words = value

    @property
    def ents(self):
        """ Access the list of entities in this document. """
        return self._ents

    @ents.setter
    def ents(self, value):
        """ Set the list of entities in this document. """
        self._ents = value

    @property
    def entities(self):
        """ Access the list of entities. This is just an alias of `ents`. """
        return self._ents

    @entities.setter
    def entities(self, value):
        """ Set the list of entities in this document. """
        self._ents = value

    def _process_sentences(self, sentences, comments=None, empty_sentences=None):
        self.sentences = []
        if empty_sentences is None:
            empty_sentences = repeat([])
        for sent_idx, (tokens, empty_words) in enumerate(zip(sentences, empty_sentences)):
            try:
                sentence = Sentence(tokens, doc=self, empty_words=empty_words)
            except IndexError as e:
                raise IndexError("Could not process document at sentence %d" % sent_idx) from e
            except ValueError as e:
                tokens = ["|%s|" % t for t in tokens]
                tokens = ", ".join(tokens)
                raise ValueError("Could not process document at sentence %d\n  Raw tokens: %s" % (sent_idx, tokens)) from e
            self.sentences.append(sentence)
            begin_idx, end_idx = sentence.tokens[0].start_char, sentence.tokens[-1].end_char
            if all((self.text is not None, begin_idx is not None, end_idx is not None)): sentence.text = self.text[begin_idx: end_idx]
            sentence.index = sent_idx

        self._count_words()

        # the comments carry sent_id, speaker, sentiment, and the rest of the
        # sentence level annotations, so they go on the sentences first and
        # everything else is read back out of them
        if not comments:
            comments = repeat(())
        for sentence, sentence_comments in zip(self.sentences, comments):
            sentence.comments = sentence_comments
            if sentence.text:
                if not sentence.has_comment(TEXT):
                    # split/join to handle weird whitespace, especially newlines
                    sentence.add_comment("# text = " + ' '.join(sentence.text.split()))
            else:
                # note that this only matches `# text`, not the `# text_en` and
                # `# text_ortho` of treebanks such as Naija-NSC
                sentence.text = sentence.get_comment(TEXT)
            if sentence.sent_id is None:
                # no sent_id in the comments, so use our enumerated id.
                # setting the sent_id on the sentence adds the comment
                sentence.sent_id = str(sentence.index)

    def _count_words(self):
        """
        Count the number of tokens and words
        """
        self.num_tokens = sum([len(sentence.tokens) for sentence in self.sentences])
        self.num_words = sum([len(sentence.words) for sentence in self.sentences])

    def get(self, fields, as_sentences=False, from_token=False):
        """ Get fields from a list of field names.
        If only one field name (string or singleton list) is provided,
        return a list of that field; if more than one, return a list of list.
        Note that all returned fields are after multi-word expansion.

        Args:
            fields: name of the fields as a list or a single string
            as_sentences: if True, return the fields as a list of sentences; otherwise as a whole list
            from_token: if True, get the fields from Token; otherwise from Word

        Returns:
            All requested fields.
        """
        if isinstance(fields, str):
            fields = [fields]
        assert isinstance(fields, list), "Must provide field names as a list."
        assert len(fields) >= 1, "Must have at least one field."

        results = []
        for sentence in self.sentences:
            cursent = []
            # decide word or token
            if from_token:
                units = sentence.tokens
            else:
                units = sentence.words
            for unit in units:
                if len(fields) == 1:
                    cursent += [getattr(unit, fields[0])]
                else:
                    cursent += [[getattr(unit, field) for field in fields]]

            # decide whether append the results as a sentence or a whole list
            if as_sentences:
                results.append(cursent)
            else:
                results += cursent
        return results

    def set(self, fields, contents, to_token=False, to_sentence=False):
        """Set fields based on contents. If only one field (string or
        singleton list) is provided, then a list of content will be
        expected; otherwise a list of list of contents will be expected.

        Args:
            fields: name of the fields as a list or a single string
            contents: field values to set; total length should be equal to number of words/tokens
            to_token: if True, set field values to tokens; otherwise to words

        """
        if isinstance(fields, str):
            fields = [fields]
        assert isinstance(fields, (tuple, list)), "Must provide field names as a list."
        assert isinstance(contents, (tuple, list)), "Must provide contents as a list (one item per line)."
        assert len(fields) >= 1, "Must have at least one field."

        assert not to_sentence or not to_token, "Both to_token and to_sentence set to True, which is very confusing"

        if to_sentence:
            assert len(self.sentences) == len(contents), \
                "Contents must have the same length as the sentences"
            for sentence, content in zip(self.sentences, contents):
                if len(fields) == 1:
                    setattr(sentence, fields[0], content)
                else:
                    for field, piece in zip(fields, content):
                        setattr(sentence, field, piece)
        else:
            assert (to_token and self.num_tokens == len(contents)) or self.num_words == len(contents), \
                "Contents must have the same length as the original file."

            cidx = 0
            for sentence in self.sentences:
                # decide word or token
                if to_token:
                    units = sentence.tokens
                else:
                    units = sentence.words
                for unit in units:
                    if len(fields) == 1:
                        setattr(unit, fields[0], contents[cidx])
                    else:
                        for field, content in zip(fields, contents[cidx]):
                            setattr(unit, field, content)
                    cidx += 1

    def set_mwt_expansions(self, expansions,
                           fake_dependencies=False,
                           process_manual_expanded=None):
        """ Extend the multi-word tokens annotated by tokenizer. A list of list of expansions
        will be expected for each multi-word token. Use `process_manual_expanded` to limit
        processing for tokens marked manually expanded:

        There are two types of MWT expansions: those with `misc`: `MWT=True`, and those with
        `manual_expansion`: True. The latter of which means that it is an expansion which the
        user manually specified through a postprocessor; the former means that it is a MWT
        which the detector picked out, but needs to be automatically expanded.

        process_manual_expanded = None - default; doesn't process manually expanded tokens
                                = True - process only manually expanded tokens (with `manual_expansion`: True)
                                = False - process only tokens explicitly tagged as MWT (`misc`: `MWT=True`)
        """

        idx_e = 0
        for sentence in self.sentences:
            idx_w = 0
            for token in sentence.tokens:
                idx_w += 1
                is_multi = (len(token.id) > 1)
                is_mwt = (multi_word_token_misc.match(token.misc) if token.misc is not None else None)
                is_manual_expansion = token.manual_expansion

                perform_mwt_processing = MWTProcessingType.FLATTEN

                if (process_manual_expanded and is_manual_expansion):
                    perform_mwt_processing = MWTProcessingType.PROCESS
                elif (process_manual_expanded==False and is_mwt):
                    perform_mwt_processing = MWTProcessingType.PROCESS
                elif (process_manual_expanded==False and is_manual_expansion):
                    perform_mwt_processing = MWTProcessingType.SKIP
                elif (process_manual_expanded==None and (is_mwt or is_multi)):
                    perform_mwt_processing = MWTProcessingType.PROCESS

                if perform_mwt_processing == MWTProcessingType.FLATTEN:
                    for word in token.words:
                        token.id = (idx_w, )
                        # delete dependency information
                        word.deps = None
                        word.head, word.deprel = None, None
                        word.id = idx_w
                elif perform_mwt_processing == MWTProcessingType.PROCESS:
                    expanded = [x for x in expansions[idx_e].split(' ') if len(x) > 0]
                    # in the event the MWT annotator only split the
                    # Token into a single Word, we preserve its text
                    # otherwise the Token's text is different from its
                    # only Word's text
                    if len(expanded) == 1:
                        expanded = [token.text]
                    idx_e += 1
                    idx_w_end = idx_w + len(expanded) - 1
                    if token.misc:  # None can happen when using a prebuilt doc
                        token.misc = None if token.misc == 'MWT=Yes' else '|'.join([x for x in token.misc.split('|') if x != 'MWT=Yes'])
                    token.id = (idx_w, idx_w_end) if len(expanded) > 1 else (idx_w,)
                    token.words = []
                    for i, e_word in enumerate(expanded):
                        token.words.append(Word(sentence, {ID: idx_w + i, TEXT: e_word}))
                    idx_w = idx_w_end
                elif perform_mwt_processing == MWTProcessingType.SKIP:
                    token.id = tuple(orig_id + idx_e for orig_id in token.id)
                    for i in token.words:
                        i.id += idx_e
                    idx_w = token.id[-1]
                    token.manual_expansion = None

            # reprocess the words using the new tokens
            sentence.words = []
            for token in sentence.tokens:
                token.sent = sentence
                for word in token.words:
                    word.sent = sentence
                    word.parent = token
                    sentence.words.append(word)
                if len(token.words) == 1:
                    word.start_char = token.start_char
                    word.end_char = token.end_char
                elif token.start_char is not None and token.end_char is not None:
                    search_string = "^%s$" % ("\\s*".join("(%s)" % re.escape(word.text) for word in token.words))
                    match = re.compile(search_string).match(token.text)
                    if match:
                        for word_idx, word in enumerate(token.words):
                            word.start_char = match.start(word_idx+1) + token.start_char
                            word.end_char = match.end(word_idx+1) + token.start_char

            if fake_dependencies:
                sentence.build_fake_dependencies()
            else:
                sentence.rebuild_dependencies()

        self._count_words() # update number of words & tokens
        assert idx_e == len(expansions), "{} {}".format(idx_e, len(expansions))
        return

    def get_mwt_expansions(self, evaluation=False):
        """ Get the multi-word tokens. For training, return a list of
        (multi-word token, extended multi-word token); otherwise, return a list of
        multi-word token only. By default doesn't skip already expanded tokens, but
        `skip_already_expanded` will return only tokens marked as MWT.
        """
        expansions = []
        for sentence in self.sentences:
            for token in sentence.tokens:
                is_multi = (len(token.id) > 1)
                is_mwt = multi_word_token_misc.match(token.misc) if token.misc is not None else None
                is_manual_expansion = token.manual_expansion
                if (is_multi and not is_manual_expansion) or is_mwt:
                    src = token.text
                    dst = ' '.join([word.text for word in token.words])
                    expansions.append([src, dst])
        if evaluation: expansions = [e[0] for e in expansions]
        return expansions

    def build_ents(self):
        """ Build the list of entities by iterating over all words. Return all entities as a list. """
        self.ents = []
        for s in self.sentences:
            s_ents = s.build_ents()
            self.ents += s_ents
        return self.ents

    def sort_features(self):
        """ Sort the features on all the words... useful for prototype treebanks, for example """
        for sentence in self.sentences:
            for word in sentence.words:
                if not word.feats:
                    continue
                pieces = word.feats.split("|")
                pieces = sorted(pieces, key=str.casefold)
                word.feats = "|".join(pieces)

    def iter_words(self):
        """ An iterator that returns all of the words in this Document. """
        for s in self.sentences:
            yield from s.words

    def iter_tokens(self):
        """ An iterator that returns all of the tokens in this Document. """
        for s in self.sentences:
            yield from s.tokens

    def sentence_comments(self):
        """ Returns a list of list of comments for the sentences """
        return [list(sentence.comments) for sentence in self.sentences]

    def remove_comments(self, comment):
        """ Remove a comment from every sentence in this document.  Returns how many were removed

        Takes a key, such as "speaker", or a whole comment line.  Removing a
        comment which is also an attribute of the sentences, such as
        `doc.remove_comments("sentiment")`, clears that attribute as well,
        since the comment is where the value lives.
        """
        return sum(sentence.remove_comment(comment) for sentence in self.sentences)

    def set_comments(self, key, value):
        """ Set a comment on every sentence in this document.  A value of None removes it """
        for sentence in self.sentences:
            sentence.set_comment(key, value)

    @property
    def coref(self):
        """
        Access the coref lists of the document
        """
        return self._coref

    @coref.setter
    def coref(self, chains):
        """ Set the document's coref lists """
        self._coref = chains
        self._attach_coref_mentions(chains)

    def _attach_coref_mentions(self, chains):
        for sentence in self.sentences:
            for word in sentence.all_words:
                word.coref_chains = []

        for chain in chains:
            for mention_idx, mention in enumerate(chain.mentions):
                sentence = self.sentences[mention.sentence]
                if isinstance(mention.start_word, tuple):
                    attachment = CorefAttachment(chain, True, True, False)
                    sentence._empty_words[mention.start_word[1]-1].coref_chains.append(attachment)
                else:
                    for word_idx in range(mention.start_word, mention.end_word):
                            is_start = word_idx == mention.start_word
                            is_end = word_idx == mention.end_word - 1
                            is_representative = mention_idx == chain.representative_index
                            attachment = CorefAttachment(chain, is_start, is_end, is_representative)
                            sentence.words[word_idx].coref_chains.append(attachment)

    def reindex_sentences(self, start_index):
        for sent_id, sentence in zip(range(start_index, start_index + len(self.sentences)), self.sentences):
            sentence.sent_id = str(sent_id)

    def to_dict(self):
        """ Dumps the whole document into a list of list of dictionary for each token in each sentence in the doc.
        """
        return [sentence.to_dict() for sentence in self.sentences]

    def __repr__(self):
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, cls=DocJSONEncoder)

    def __format__(self, spec):
        if spec and spec[0] in ('c', 'C'):
            spec = "{:%s}" % spec
            return "\n\n".join(spec.format(s) for s in self.sentences)
        else:
            return str(self)

    def to_serialized(self):
        """Dumps the whole document including text to a UTF-8 encoded JSON byte string.

        The format is a dict with keys 'text', 'sentences', and 'comments'.
        Old pickle-format blobs can still be loaded by from_serialized() but
        will produce a DeprecationWarning.
        """
        payload = {
            "text": self.text,
            "sentences": self.to_dict(),
            "comments": self.sentence_comments(),
        }
        return json.dumps(payload).encode("utf-8")

    @classmethod
    def from_serialized(cls, serialized_string):
        """Create and initialize a new document from a serialized string.

        Accepts both the current JSON format produced by to_serialized() and
        the legacy pickle format. Pickle-format blobs will trigger a
        DeprecationWarning; support for them will be removed in a future release.
        """
        # Detect JSON by checking for a leading b'{' (UTF-8, no BOM).
        # Pickle blobs always begin with 0x80 (protocol opcode), never '{'.
        if serialized_string[:1] == b"{":
            payload = json.loads(serialized_string)
            if not isinstance(payload, dict):
                raise TypeError(
                    "Serialized JSON data was not a dict when building a Document"
                )
            text = payload.get("text")
            sentences = payload.get("sentences")
            comments = payload.get("comments")
            if comments is not None:
                return cls(sentences, text, comments)
            return cls(sentences, text)

        # Legacy pickle path.
        warnings.warn(
            "Loading a Document from a pickle-format serialized string is deprecated "
            "and will be removed in a future release. Re-save using Document.to_serialized(), "
            "which now produces a JSON-format byte string.",
            DeprecationWarning,
            stacklevel=2,
        )
        stuff = RestrictedUnpickler(io.BytesIO(serialized_string)).load()
        if not isinstance(stuff, tuple):
            raise TypeError(
                "Serialized pickle data was not a tuple when building a Document"
            )
        if len(stuff) == 2:
            text, sentences = stuff
            return cls(sentences, text)
        text, sentences, comments = stuff
        return cls(sentences, text, comments)


def _empty_word_sort_key(word):
    """Sort empty words by index, tolerating an id that is not a tuple.

    An empty word built by _process_tokens carries a normalized tuple id, and
    one supplied through the empty_words argument is whatever the caller put
    there.
    """
    word_id = word.id
    if isinstance(word_id, (tuple, list)):
        return tuple(word_id)
    return (word_id, )


class Sentence(StanzaObject):
    """ A sentence class that stores attributes of a sentence and carries a list of tokens.
    """

    def __init__(self, tokens, doc=None, empty_words=None):
        """ Construct a sentence given a list of tokens in the form of CoNLL-U dicts.
        """
        self._tokens = []
        self._words = []
        self._dependencies = []
        self._text = None
        self._ents = []
        self._doc = doc
        # the comment lines occurring before the sentence in a CoNLL-U file.
        # can be empty.  this is also where sent_id, doc_id, speaker,
        # sentiment, and the constituency tree are stored
        self._comments = CommentList()

        # enhanced_dependencies represents the DEPS column
        # this is a networkx MultiDiGraph
        # with edges from the parent to the dependent
        # however, we set it to None until needed, as it is somewhat slow
        self._enhanced_dependencies = None
        # _process_tokens appends here for any empty node it finds inline in
        # the token list, which is how Sentence.to_dict() writes them
        self._empty_words = []
        self._process_tokens(tokens)

        if empty_words is not None:
            given = [Word(self, entry) for entry in empty_words]
            if self._empty_words:
                # both sources in play, so put them in index order.  the key
                # tolerates an id that is not a tuple, since an explicitly
                # supplied entry is not normalized the way _process_tokens
                # normalizes the ones it finds inline
                self._empty_words = sorted(given + self._empty_words,
                                           key=_empty_word_sort_key)
            else:
                self._empty_words = given

    def _process_tokens(self, tokens):
        st, en = -1, -1
        self.tokens, self.words = [], []
        word_ids = set()
        for i, entry in enumerate(tokens):
            if ID not in entry: # manually set a 1-based id for word if not exist
                entry[ID] = (i+1, )
            if isinstance(entry[ID], int):
                entry[ID] = (entry[ID], )
            elif isinstance(entry[ID], list):
                # json has no tuple type, so an id written by to_dict() as
                # (3, 4) reads back as [3, 4].  the rest of the Document
                # code tests the id for tuple, so restore it here, which
                # covers every path that builds a Document from dicts
                entry[ID] = tuple(entry[ID])
            if len(entry.get(ID)) > 1 and (entry[ID][0] == 0 or entry[ID][0] in word_ids):
                # an empty node, not a range.  a range token comes before the
                # words it spans, so its first index has not been seen yet,
                # and no range can start at 0, so a 0 first index is always an
                # empty node.  Sentence.to_dict() writes empty nodes inline in
                # the token list, and this is what tells them apart on the way
                # back in
                self._empty_words.append(Word(self, entry))
            elif len(entry.get(ID)) > 1: # if this token is a multi-word token
                st, en = entry[ID]
                self.tokens.append(Token(self, entry))
            else: # else this token is a word
                new_word = Word(self, entry)
                if len(self.words) > 0 and self.words[-1].id == new_word.id:
                    # this can happen in the following context:
                    # a document was created with MWT=Yes to mark that a token should be split
                    # and then there was an MWT "expansion" with a single word after that token
                    # we replace the Word in the Token assuming that the expansion token might
                    # have more information than the Token dict did
                    # note that a single word MWT like that can be detected with something like
                    #   multi_word_token_misc.match(entry.get(MISC)) if entry.get(MISC, None)
                    self.words[-1] = new_word
                    self.tokens[-1].words[-1] = new_word
                    continue
                self.words.append(new_word)
                idx = entry.get(ID)[0]
                word_ids.add(idx)
                if idx <= en:
                    self.tokens[-1].words.append(new_word)
                else:
                    self.tokens.append(Token(self, entry, words=[new_word]))
                new_word.parent = self.tokens[-1]

        # put all of the whitespace annotations (if any) on the Tokens instead of the Words
        for token in self.tokens:
            token.consolidate_whitespace()
        self.rebuild_dependencies()

    def has_enhanced_dependencies(self):
        """
        Whether or not the enhanced dependencies are part of this sentence
        """
        return self._enhanced_dependencies is not None and len(self._enhanced_dependencies) > 0

    @property
    def enhanced_dependencies(self):
        """
        Returns the enhanced_dependencies graph.

        Creates an empty one if one currently does not exist.
        """
        graph = self._enhanced_dependencies
        if graph is None:
            graph = nx.MultiDiGraph()
            self._enhanced_dependencies = graph
        return graph

    @property
    def index(self):
        """
        Access the index of this sentence within the doc.

        If multiple docs were processed together,
        the sentence index will continue counting across docs.
        """
        return self._index

    @index.setter
    def index(self, value):
        """ Set the sentence's index value. """
        self._index = value

    @property
    def id(self):
        """
        Access the index of this sentence within the doc.

        If multiple docs were processed together,
        the sentence index will continue counting across docs.
        """
        warnings.warn("Use of sentence.id is deprecated.  Please use sentence.index instead", stacklevel=2)
        return self._index

    @id.setter
    def id(self, value):
        """ Set the sentence's index value. """
        warnings.warn("Use of sentence.id is deprecated.  Please use sentence.index instead", stacklevel=2)
        self._index = value

    @property
    def sent_id(self):
        """ conll-style sent_id  Document sets this from the index if the comments don't have one """
        return self._comments.get(SENT_ID)

    @sent_id.setter
    def sent_id(self, value):
        """ Set the sentence's sent_id value, updating the `# sent_id` comment """
        self._comments.set(SENT_ID, value)

    @property
    def speaker(self):
        """ conll-style speaker - adopt the EN GUM formatting """
        return self._comments.get(SPEAKER)

    @speaker.setter
    def speaker(self, value):
        """ Set the sentence's speaker value.  A blank speaker removes the comment """
        self._comments.set(SPEAKER, value)

    @property
    def doc_id(self):
        """ conll-style doc_id  Can be left blank if unknown """
        return self._comments.get(DOC_ID)

    @doc_id.setter
    def doc_id(self, value):
        """ Set the sentence's doc_id value, updating the `# doc_id` comment """
        self._comments.set(DOC_ID, value)

    @property
    def doc(self):
        """ Access the parent doc of this span. """
        return self._doc

    @doc.setter
    def doc(self, value):
        """ Set the parent doc of this span. """
        self._doc = value

    @property
    def text(self):
        """ Access the raw text for this sentence. """
        return self._text

    @text.setter
    def text(self, value):
        """ Set the raw text for this sentence. """
        self._text = value

    @property
    def dependencies(self):
        """ Access list of dependencies for this sentence. """
        return self._dependencies

    @dependencies.setter
    def dependencies(self, value):
        """ Set the list of dependencies for this sentence. """
        self._dependencies = value

    @property
    def tokens(self):
        """ Access the list of tokens for this sentence. """
        return self._tokens

    @tokens.setter
    def tokens(self, value):
        """ Set the list of tokens for this sentence. """
        self._tokens = value

    @property
    def words(self):
        """ Access the list of words for this sentence. """
        return self._words

    @words.setter
    def words(self, value):
        """ Set the list of words for this sentence. """
        self._words = value

    @property
    def empty_words(self):
        """ Access the list of words for this sentence. """
        return self._empty_words

    @empty_words.setter
    def empty_words(self, value):
        """ Set the list of words for this sentence. """
        self._empty_words = value

    @property
    def all_words(self):
        """ Access the list of words + empty words for this sentence. """
        words = self._words
        empty_words = self._empty_words

        all_words = sorted(words + empty_words,
                           key=lambda x:(x.id,) if isinstance(x.id, int) else x.id)

        return all_words

    @property
    def ents(self):
        """ Access the list of entities in this sentence. """
        return self._ents

    @ents.setter
    def ents(self, value):
        """ Set the list of entities in this sentence. """
        self._ents = value

    @property
    def entities(self):
        """ Access the list of entities. This is just an alias of `ents`. """
        return self._ents

    @entities.setter
    def entities(self, value):
        """ Set the list of entities in this sentence. """
        self._ents = value

    def build_ents(self):
        """ Build the list of entities by iterating over all tokens. Return all entities as a list.

        Note that unlike other attributes, since NER requires raw text, the actual tagging are always
        performed at and attached to the `Token`s, instead of `Word`s.
        """
        self.ents = []
        tags = [w.ner for w in self.tokens]
        decoded = decode_from_bioes(tags)
        for e in decoded:
            ent_tokens = self.tokens[e['start']:e['end']+1]
            self.ents.append(Span(tokens=ent_tokens, type=e['type'], doc=self.doc, sent=self))
        return self.ents

    @property
    def sentiment(self):
        """ Returns the sentiment value for this sentence """
        return self._comments.get(SENTIMENT)

    @sentiment.setter
    def sentiment(self, value):
        """ Set the sentiment value, updating the `# sentiment` comment """
        self._comments.set(SENTIMENT, value)

    @property
    def constituency(self):
        """ Returns the constituency tree for this sentence """
        return self._comments.get(CONSTITUENCY)

    @constituency.setter
    def constituency(self, value):
        """
        Set the constituency tree

        This incidentally updates the #constituency comment if it already exists,
        or otherwise creates a new comment # constituency = ...
        Setting it to None removes the comment.
        """
        self._comments.set(CONSTITUENCY, value)

    @property
    def comments(self):
        """ Returns the CoNLL-style comments for this sentence, as a CommentList """
        return self._comments

    @comments.setter
    def comments(self, value):
        """ Replace all of the comments on this sentence """
        self._comments = CommentList(value)

    def add_comment(self, comment):
        """ Adds a single comment to this sentence.

        If the comment does not already have # at the start, it will be added.

        A comment which repeats a key already on this sentence, such as a
        second `# sent_id`, replaces the existing one where it stands.
        """
        self._comments.add(comment)

    def remove_comment(self, comment):
        """ Removes comments from this sentence.  Returns how many were removed

        Takes a key, such as "speaker", or a whole comment line.  Removing a
        comment which is also an attribute of the sentence clears the
        attribute as well, since the comment is where the value lives:
        `sentence.remove_comment("constituency")` leaves
        sentence.constituency as None.

        Removing a comment which isn't there is not an error.  The result is 0.
        """
        return self._comments.remove(comment)

    def get_comment(self, key, default=None):
        """ The value of the comment with this key, or default if there is no such comment """
        return self._comments.get(key, default)

    def set_comment(self, key, value):
        """ Set the comment for a key, replacing any existing one.  A value of None removes it """
        self._comments.set(key, value)

    def has_comment(self, key):
        """ Whether this sentence has a comment with this key """
        return self._comments.has(key)

    def rebuild_dependencies(self):
        # rebuild dependencies if there is dependency info
        is_complete_dependencies = all(word.head is not None and word.deprel is not None for word in self.words)
        is_complete_words = (len(self.words) >= len(self.tokens)) and (len(self.words) == self.words[-1].id)
        if is_complete_dependencies and is_complete_words: self.build_dependencies()

    def build_dependencies(self):
        """ Build the dependency graph for this sentence. Each dependency graph entry is
        a list of (head, deprel, word).
        """
        self.dependencies = []
        for word in self.words:
            if word.head == 0:
                # make a word for the ROOT
                word_entry = {ID: 0, TEXT: "ROOT"}
                head = Word(self, word_entry)
            else:
                # id is index in words list + 1
                try:
                    head = self.words[word.head - 1]
                except IndexError as e:
                    raise IndexError("Word head {} is not a valid word index for word {}".format(word.head, word.id)) from e
                if word.head != head.id:
                    raise ValueError("Dependency tree is incorrectly constructed")
            self.dependencies.append((head, word.deprel, word))

    def build_fake_dependencies(self):
        self.dependencies = []
        for word_idx, word in enumerate(self.words):
            word.head = word_idx   # note that this goes one previous to the index
            word.deprel = "root" if word_idx == 0 else "dep"
            word.deps = "%d:%s" % (word.head, word.deprel)
            self.dependencies.append((word_idx, word.deprel, word))

    def print_dependencies(self, file=None):
        """ Print the dependencies for this sentence. """
        for dep_edge in self.dependencies:
            print((dep_edge[2].text, dep_edge[0].id, dep_edge[1]), file=file)

    def dependencies_string(self):
        """ Dump the dependencies for this sentence into string. """
        dep_string = io.StringIO()
        self.print_dependencies(file=dep_string)
        return dep_string.getvalue().strip()

    def get_roots(self):
        """ Return a list of root(s) from a sentence """
        roots = []
        for word in self.words:
            if word.head == 0:
                roots.append(word)
        return roots

    def print_tokens(self, file=None):
        """ Print the tokens for this sentence. """
        for tok in self.tokens:
            print(tok.pretty_print(), file=file)

    def tokens_string(self):
        """ Dump the tokens for this sentence into string. """
        toks_string = io.StringIO()
        self.print_tokens(file=toks_string)
        return toks_string.getvalue().strip()

    def print_words(self, file=None):
        """ Print the words for this sentence. """
        for word in self.words:
            print(word.pretty_print(), file=file)

    def words_string(self):
        """ Dump the words for this sentence into string. """
        wrds_string = io.StringIO()
        self.print_words(file=wrds_string)
        return wrds_string.getvalue().strip()

    def _ordered_dicts(self, fields=DEFAULT_OUTPUT_FIELDS):
        """ Yield (dict, is_empty_word) for this sentence in CoNLL-U order.

        An empty word i.j goes immediately after the word with index i.  That
        word can sit inside a multiword token, so the interleaving has to
        happen per word rather than per token: for 8-9 8 8.1 9 the empty word
        belongs between the two words of the range.  An empty word with index
        0 goes before everything, including a range line that starts at 1.

        to_dict() and __format__() both read from here so that the two cannot
        drift apart.
        """
        if not self._empty_words:
            # the common case, and the only one that ignore_gapping=True can
            # produce.  keep it on the old path so nothing pays for the
            # interleaving that has nothing to interleave
            for token in self.tokens:
                for entry in token.to_dict(fields):
                    yield entry, False
            return

        # a caller can append to empty_words without keeping it in order, so
        # do not rely on it: coref_processor builds its zero anaphora nodes
        # cluster by cluster rather than in word order
        empties = sorted(self._empty_words, key=_empty_word_sort_key)
        empty_idx = 0
        while empty_idx < len(empties) and empties[empty_idx].id[0] == 0:
            yield empties[empty_idx].to_dict(fields), True
            empty_idx += 1
        for token in self.tokens:
            token_dicts = token.to_dict(fields)
            offset = 1 if len(token.id) > 1 else 0
            if offset:
                yield token_dicts[0], False
            for word, word_dict in zip(token.words, token_dicts[offset:]):
                yield word_dict, False
                while empty_idx < len(empties) and empties[empty_idx].id[0] == word.id:
                    yield empties[empty_idx].to_dict(fields), True
                    empty_idx += 1
        while empty_idx < len(empties):
            yield empties[empty_idx].to_dict(fields), True
            empty_idx += 1

    def to_dict(self):
        """ Dumps the sentence into a list of dictionary for each token in the sentence.
        """
        if not self._empty_words:
            # _ordered_dicts guards this case as well, so the two agree either
            # way.  the guard is here so that the common path does not go
            # through the generator to reach the same answer
            ret = []
            for token in self.tokens:
                ret += token.to_dict()
            return ret
        return [entry for entry, _ in self._ordered_dicts()]

    def __repr__(self):
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, cls=DocJSONEncoder)

    def __format__(self, spec):
        if not spec:
            return str(self)
        if not spec[0] == 'c' and not spec[0] == 'C':
            return str(self)
        if "-o" in spec:
            fields = NO_OFFSETS_OUTPUT_FIELDS
        else:
            fields = DEFAULT_OUTPUT_FIELDS

        pieces = [dict_to_conll_text(entry, "." if is_empty else "-")
                  for entry, is_empty in self._ordered_dicts(fields)]

        if spec[0] == 'c':
            return "\n".join(pieces)
        elif spec[0] == 'C':
            tokens = "\n".join(pieces)
            if len(self.comments) > 0:
                text = "\n".join(self.comments)
                return text + "\n" + tokens
            return tokens

def init_from_misc(unit):
    """Create attributes by parsing from the `misc` field.

    Also, remove start_char, end_char, and any other values we can set
    from the misc field if applicable, so that we don't repeat ourselves
    """
    remaining_values = []
    for item in unit._misc.split('|'):
        key_value = item.split('=', 1)
        if len(key_value) == 2:
            # some key_value can not be split
            key, value = key_value
            # start & end char are kept as ints
            if key in (START_CHAR, END_CHAR, LINE_NUMBER):
                value = int(value)
            # set attribute
            attr = f'_{key}'
            if hasattr(unit, attr):
                setattr(unit, attr, value)
                continue
            elif key == NER:
                # special case skipping NER for Words, since there is no Word NER field
                continue
        remaining_values.append(item)
    unit._misc = "|".join(remaining_values)


def dict_to_conll_text(token_dict, id_connector="-"):
    token_conll = ['_' for i in range(FIELD_NUM)]

    misc = []
    if token_dict.get(MISC):
        # avoid appending a blank misc entry.
        # otherwise the resulting misc field in the conll doc will wind up being blank text
        # TODO: potentially need to escape =|\ in the MISC as well
        misc.append(token_dict[MISC])

    # for other items meant to be in the MISC field,
    # we try to operate on those columns in a deterministic order
    # so that the output doesn't change based on the order of keys
    # in the token_dict
    for key in [START_CHAR, END_CHAR, NER]:
        if key in token_dict:
            misc.append("{}={}".format(key, token_dict[key]))

    if COREF_CHAINS in token_dict:
        chains = token_dict[COREF_CHAINS]
        if len(chains) > 0:
            misc_chains = []
            for chain in chains:
                if chain.is_start and chain.is_end:
                    coref_position = "unit-"
                elif chain.is_start:
                    coref_position = "start-"
                elif chain.is_end:
                    coref_position = "end-"
                else:
                    coref_position = "middle-"
                is_representative = "repr-" if chain.is_representative else ""
                misc_chains.append("%s%sid%d" % (coref_position, is_representative, chain.chain.index))
            misc.append("{}={}".format(COREF_CHAINS, ",".join(misc_chains)))

    if MORPHEMES in token_dict and token_dict[MORPHEMES]:
        misc.append("Morphemes={}".format(",".join(token_dict[MORPHEMES])))

    for key in token_dict.keys():
        if key == ID:
            token_conll[FIELD_TO_IDX[key]] = id_connector.join([str(x) for x in token_dict[key]]) if isinstance(token_dict[key], tuple) else str(token_dict[key])
        elif key == FEATS:
            feats = token_dict[key]
            if feats:
                pieces = feats.split("|")
                pieces = sorted(pieces, key=str.casefold)
                feats = "|".join(pieces)
            token_conll[FIELD_TO_IDX[key]] = str(feats)
        elif key in FIELD_TO_IDX:
            token_conll[FIELD_TO_IDX[key]] = str(token_dict[key])
        elif key == LINE_NUMBER:
            # skip this when converting back for now
            pass
    if misc:
        token_conll[FIELD_TO_IDX[MISC]] = "|".join(misc)
    else:
        token_conll[FIELD_TO_IDX[MISC]] = '_'
    # when a word (not mwt token) without head is found, we insert dummy head as required by the UD eval script
    if '-' not in token_conll[FIELD_TO_IDX[ID]] and '.' not in token_conll[FIELD_TO_IDX[ID]] and HEAD not in token_dict:
        token_conll[FIELD_TO_IDX[HEAD]] = str(int(token_dict[ID] if isinstance(token_dict[ID], int) else token_dict[ID][0]) - 1) # evaluation script requires head: int
    return "\t".join(token_conll)


class Token(StanzaObject):
    """ A token class that stores attributes of a token and carries a list of words. A token corresponds to a unit in the raw
    text. In some languages such as English, a token has a one-to-one mapping to a word, while in other languages such as French,
    a (multi-word) token might be expanded into multiple words that carry syntactic annotations.
    """

    def __init__(self, sentence, token_entry, words=None):
        """
        Construct a token given a dictionary format token entry. Optionally link itself to the corresponding words.
        The owning sentence must be passed in.
        """
        self._id = token_entry.get(ID)
        self._text = token_entry.get(TEXT)
        if not self._id:
            raise ValueError('id not included for the token')
        if not self._text:
            raise ValueError('text not included for the token')
        self._misc = token_entry.get(MISC, None)
        self._ner = token_entry.get(NER, None)
        self._multi_ner = token_entry.get(MULTI_NER, None)
        self._words = words if words is not None else []
        self._start_char = token_entry.get(START_CHAR, None)
        self._end_char = token_entry.get(END_CHAR, None)
        self._sent = sentence
        self._mexp = token_entry.get(MEXP, None)
        self._spaces_before = ""
        self._spaces_after = " "
        self._line_number = None

        if self._misc is not None:
            init_from_misc(self)

    @property
    def id(self):
        """ Access the index of this token. """
        return self._id

    @id.setter
    def id(self, value):
        """ Set the token's id value. """
        self._id = value

    @property
    def manual_expansion(self):
        """ Access the whether this token was manually expanded. """
        return self._mexp

    @manual_expansion.setter
    def manual_expansion(self, value):
        """ Set the whether this token was manually expanded. """
        self._mexp = value

    @property
    def text(self):
        """ Access the text of this token. Example: 'The' """
        return self._text

    @text.setter
    def text(self, value):
        """ Set the token's text value. Example: 'The' """
        self._text = value

    @property
    def misc(self):
        """ Access the miscellaneousness of this token. """
        return self._misc

    @misc.setter
    def misc(self, value):
        """ Set the token's miscellaneousness value. """
        self._misc = value if self._is_null(value) == False else None

    def consolidate_whitespace(self):
        """
        Remove whitespace misc annotations from the Words and mark the whitespace on the Tokens
        """
        # most tokens have no whitespace annotation at all, and searching the
        # misc strings for one is much cheaper than splitting each of them
        # into pieces.  every prefix this method looks for - SpaceAfter,
        # SpacesAfter, SpacesBefore - begins with "Space", and every test it
        # makes on them is case sensitive, so this skips exactly the tokens
        # which would have fallen through all of those tests anyway
        if not (self._misc and "Space" in self._misc) and not any(word._misc and "Space" in word._misc for word in self.words):
            return

        found_after = False
        found_before = False
        num_words = len(self.words)
        for word_idx, word in enumerate(self.words):
            misc = word.misc
            if not misc:
                continue
            pieces = misc.split("|")
            if word_idx == 0:
                if any(piece.startswith("SpacesBefore=") for piece in pieces):
                    self.spaces_before = misc_to_space_before(misc)
                    found_before = True
            else:
                if any(piece.startswith("SpacesBefore=") for piece in pieces):
                    warnings.warn("Found a SpacesBefore MISC annotation on a Word that was not the first Word in a Token")
            if word_idx == num_words - 1:
                if any(piece.startswith("SpaceAfter=") or piece.startswith("SpacesAfter=") for piece in pieces):
                    self.spaces_after = misc_to_space_after(misc)
                    found_after = True
            else:
                if any(piece.startswith("SpaceAfter=") or piece.startswith("SpacesAfter=") for piece in pieces):
                    unexpected_space_after = misc_to_space_after(misc)
                    if unexpected_space_after == "":
                        warnings.warn("Unexpected SpaceAfter=No annotation on a word in the middle of an MWT")
                    else:
                        warnings.warn("Unexpected SpacesAfter on a word in the middle on an MWT")
            pieces = [x for x in pieces if not x.startswith("SpacesAfter=") and not x.startswith("SpaceAfter=") and not x.startswith("SpacesBefore=")]
            word.misc = "|".join(pieces)

        misc = self.misc
        if misc:
            pieces = misc.split("|")
            if any(piece.startswith("SpacesBefore=") for piece in pieces):
                spaces_before = misc_to_space_before(misc)
                if found_before:
                    if spaces_before != self.spaces_before:
                        warnings.warn("Found conflicting SpacesBefore on a token and its word!")
                else:
                    self.spaces_before = spaces_before
            if any(piece.startswith("SpaceAfter=") or piece.startswith("SpacesAfter=") for piece in pieces):
                spaces_after = misc_to_space_after(misc)
                if found_after:
                    if spaces_after != self.spaces_after:
                        warnings.warn("Found conflicting SpaceAfter / SpacesAfter on a token and its word!")
                else:
                    self.spaces_after = spaces_after
            pieces = [x for x in pieces if not x.startswith("SpacesAfter=") and not x.startswith("SpaceAfter=") and not x.startswith("SpacesBefore=")]
            self.misc = "|".join(pieces)

    @property
    def spaces_before(self):
        """ SpacesBefore for the token. Translated from the MISC fields """
        return self._spaces_before

    @spaces_before.setter
    def spaces_before(self, value):
        self._spaces_before = value

    @property
    def spaces_after(self):
        """ SpaceAfter or SpacesAfter for the token.  Translated from the MISC field """
        return self._spaces_after

    @spaces_after.setter
    def spaces_after(self, value):
        self._spaces_after = value

    @property
    def words(self):
        """ Access the list of syntactic words underlying this token. """
        return self._words

    @words.setter
    def words(self, value):
        """ Set this token's list of underlying syntactic words. """
        self._words = value
        for w in self._words:
            w.parent = self

    @property
    def line_number(self):
        """ Access the line number from the original document, if set """
        return self._line_number

    @property
    def start_char(self):
        """ Access the start character index for this token in the raw text. """
        return self._start_char

    @property
    def end_char(self):
        """ Access the end character index for this token in the raw text. """
        return self._end_char

    @property
    def ner(self):
        """ Access the NER tag of this token. Example: 'B-ORG'"""
        return self._ner

    @ner.setter
    def ner(self, value):
        """ Set the token's NER tag. Example: 'B-ORG'"""
        self._ner = value if self._is_null(value) == False else None

    @property
    def multi_ner(self):
        """ Access the MULTI_NER tag of this token. Example: '(B-ORG, B-DISEASE)'"""
        return self._multi_ner

    @multi_ner.setter
    def multi_ner(self, value):
        """ Set the token's MULTI_NER tag. Example: '(B-ORG, B-DISEASE)'"""
        self._multi_ner = value if self._is_null(value) == False else None

    @property
    def sent(self):
        """ Access the pointer to the sentence that this token belongs to. """
        return self._sent

    @sent.setter
    def sent(self, value):
        """ Set the pointer to the sentence that this token belongs to. """
        self._sent = value

    def __repr__(self):
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, cls=DocJSONEncoder)

    def __format__(self, spec):
        if spec == 'C':
            return "\n".join(self.to_conll_text(DEFAULT_OUTPUT_FIELDS))
        elif spec == 'P':
            return self.pretty_print()
        else:
            return str(self)

    def to_conll_text(self, fields=DEFAULT_OUTPUT_FIELDS):
        return "\n".join(dict_to_conll_text(x) for x in self.to_dict(fields))

    def to_dict(self, fields=DEFAULT_OUTPUT_FIELDS):
        """ Dumps the token into a list of dictionary for this token with its extended words
        if the token is a multi-word token.
        """
        ret = []
        if len(self.id) > 1:
            token_dict = {}
            for field in fields:
                if getattr(self, field, None) is not None:
                    token_dict[field] = getattr(self, field)
            if MISC in fields:
                needs_sorting = False

                spaces_after = self.spaces_after
                if spaces_after is not None and spaces_after != ' ':
                    space_misc = space_after_to_misc(spaces_after)
                    if token_dict.get(MISC):
                        token_dict[MISC] = token_dict[MISC] + "|" + space_misc
                        needs_sorting = True
                    else:
                        token_dict[MISC] = space_misc

                spaces_before = self.spaces_before
                if spaces_before is not None and spaces_before != '':
                    space_misc = space_before_to_misc(spaces_before)
                    if token_dict.get(MISC):
                        token_dict[MISC] = token_dict[MISC] + "|" + space_misc
                        needs_sorting = True
                    else:
                        token_dict[MISC] = space_misc
                if needs_sorting:
                    pieces = sorted(token_dict[MISC].split("|"))
                    token_dict[MISC] = "|".join(pieces)

            ret.append(token_dict)
        for word in self.words:
            word_dict = word.to_dict(fields)
            if len(self.id) == 1 and NER in fields and getattr(self, NER) is not None: # propagate NER label to Word if it is a single-word token
                word_dict[NER] = getattr(self, NER)
            if len(self.id) == 1 and MULTI_NER in fields and getattr(self, MULTI_NER) is not None: # propagate MULTI_NER label to Word if it is a single-word token
                word_dict[MULTI_NER] = getattr(self, MULTI_NER)
            if len(self.id) == 1 and MISC in fields:
                needs_sorting = False

                spaces_after = self.spaces_after
                if spaces_after is not None and spaces_after != ' ':
                    space_misc = space_after_to_misc(spaces_after)
                    if word_dict.get(MISC):
                        word_dict[MISC] = word_dict[MISC] + "|" + space_misc
                        needs_sorting = True
                    else:
                        word_dict[MISC] = space_misc

                spaces_before = self.spaces_before
                if spaces_before is not None and spaces_before != '':
                    space_misc = space_before_to_misc(spaces_before)
                    if word_dict.get(MISC):
                        word_dict[MISC] = word_dict[MISC] + "|" + space_misc
                        needs_sorting = True
                    else:
                        word_dict[MISC] = space_misc
                if needs_sorting:
                    pieces = sorted(word_dict[MISC].split("|"))
                    word_dict[MISC] = "|".join(pieces)
            ret.append(word_dict)
        return ret

    def pretty_print(self):
        """ Print this token with its extended words in one line. """
        return f"<{self.__class__.__name__} id={'-'.join([str(x) for x in self.id])};words=[{', '.join([word.pretty_print() for word in self.words])}]>"

    def _is_null(self, value):
        return (value is None) or (value == '_')

    def is_mwt(self):
        return len(self.words) > 1

class Word(StanzaObject):
    """ A word class that stores attributes of a word.
    """

    def __init__(self, sentence, word_entry):
        """ Construct a word given a dictionary format word entry.
        """
        self._id = word_entry.get(ID, None)
        if isinstance(self._id, tuple):
            if len(self._id) == 1:
                self._id = self._id[0]
        self._text = word_entry.get(TEXT, None)

        assert self._id is not None and self._text is not None, 'id and text should be included for the word. {}'.format(word_entry)

        self._lemma = word_entry.get(LEMMA, None)
        self._upos = word_entry.get(UPOS, None)
        self._xpos = word_entry.get(XPOS, None)
        self._feats = word_entry.get(FEATS, None)
        self._head = word_entry.get(HEAD, None)
        self._deprel = word_entry.get(DEPREL, None)
        self._misc = word_entry.get(MISC, None)
        self._start_char = word_entry.get(START_CHAR, None)
        self._end_char = word_entry.get(END_CHAR, None)
        self._parent = None
        self._sent = sentence
        self._mexp = word_entry.get(MEXP, None)
        self._coref_chains = None
        self._line_number = None

        if self._misc is not None:
            init_from_misc(self)

        # a Word being constructed cannot have any existing in-edges to clear,
        # so we skip the general setter and go straight to adding the edges
        deps = word_entry.get(DEPS, None)
        if deps is not None:
            self._init_deps(deps)

    def _init_deps(self, value):
        """Add the enhanced dependencies of a freshly built Word

        The deps setter has to clear the Word's existing parents first, which
        costs a has_node and an in_edges lookup per Word.  Neither can find
        anything during construction, so this skips them
        """
        graph = self._sent._enhanced_dependencies
        if graph is None:
            graph = nx.MultiDiGraph()
            self._sent._enhanced_dependencies = graph

        if isinstance(value, str):
            value = value.split("|")
        if all(isinstance(x, str) for x in value):
            value = [x.split(":", maxsplit=1) for x in value]
        word_id = self.id
        add_edge = graph.add_edge
        for parent, dep in value:
            # only an empty node has a . in its id, and those are rare, so the
            # common case skips building a tuple just to unpack it again
            if "." in parent:
                parent = tuple(map(int, parent.split(".", maxsplit=1)))
                if len(parent) == 1:
                    parent = parent[0]
            else:
                parent = int(parent)
            add_edge(parent, word_id, dep)

    @property
    def manual_expansion(self):
        """ Access the whether this token was manually expanded. """
        return self._mexp

    @manual_expansion.setter
    def manual_expansion(self, value):
        """ Set the whether this token was manually expanded. """
        self._mexp = value

    @property
    def id(self):
        """ Access the index of this word. """
        return self._id

    @id.setter
    def id(self, value):
        """ Set the word's index value. """
        self._id = value

    @property
    def text(self):
        """ Access the text of this word. Example: 'The'"""
        return self._text

    @text.setter
    def text(self, value):
        """ Set the word's text value. Example: 'The'"""
        self._text = value

    @property
    def lemma(self):
        """ Access the lemma of this word. """
        return self._lemma

    @lemma.setter
    def lemma(self, value):
        """ Set the word's lemma value. """
        self._lemma = value if self._is_null(value) == False or self._text == '_' else None

    @property
    def upos(self):
        """ Access the universal part-of-speech of this word. Example: 'NOUN'"""
        return self._upos

    @upos.setter
    def upos(self, value):
        """ Set the word's universal part-of-speech value. Example: 'NOUN'"""
        self._upos = value if self._is_null(value) == False else None

    @property
    def xpos(self):
        """ Access the treebank-specific part-of-speech of this word. Example: 'NNP'"""
        return self._xpos

    @xpos.setter
    def xpos(self, value):
        """ Set the word's treebank-specific part-of-speech value. Example: 'NNP'"""
        self._xpos = value if self._is_null(value) == False else None

    @property
    def feats(self):
        """ Access the morphological features of this word. Example: 'Gender=Fem'"""
        return self._feats

    @feats.setter
    def feats(self, value):
        """ Set this word's morphological features. Example: 'Gender=Fem'"""
        self._feats = value if self._is_null(value) == False else None

    @property
    def head(self):
        """ Access the id of the governor of this word. """
        return self._head

    @head.setter
    def head(self, value):
        """ Set the word's governor id value. """
        self._head = int(value) if self._is_null(value) == False else None

    @property
    def deprel(self):
        """ Access the dependency relation of this word. Example: 'nmod'"""
        return self._deprel

    @deprel.setter
    def deprel(self, value):
        """ Set the word's dependency relation value. Example: 'nmod'"""
        self._deprel = value if self._is_null(value) == False else None

    @property
    def deps(self):
        """ Access the dependencies of this word. """
        graph = self._sent._enhanced_dependencies
        if graph is None or not graph.has_node(self.id):
            return None

        data = []
        predecessors = sorted(list(graph.predecessors(self.id)), key=lambda x: x if isinstance(x, tuple) else (x,))
        for parent in predecessors:
            deps = sorted(list(graph.get_edge_data(parent, self.id)))
            for dep in deps:
                if isinstance(parent, int):
                    data.append("%d:%s" % (parent, dep))
                else:
                    data.append("%d.%d:%s" % (parent[0], parent[1], dep))
        if not data:
            return None

        return "|".join(data)

    @deps.setter
    def deps(self, value):
        """ Set the word's dependencies value. """
        graph = self._sent._enhanced_dependencies
        # if we don't have a graph, and we aren't trying to set any actual
        # dependencies, we can save the time of doing anything else
        if graph is None and value is None:
            return

        if graph is None:
            graph = nx.MultiDiGraph()
            self._sent._enhanced_dependencies = graph
        # need to make a new list: cannot iterate and delete at the same time
        if graph.has_node(self.id):
            in_edges = list(graph.in_edges(self.id))
            graph.remove_edges_from(in_edges)

        if value is None:
            return

        if isinstance(value, str):
            value = value.split("|")
        if all(isinstance(x, str) for x in value):
            value = [x.split(":", maxsplit=1) for x in value]
        for parent, dep in value:
            # we have to match the format of the IDs.  since the IDs
            # of the words are int if they aren't empty words, we need
            # to convert single int IDs into int instead of tuple
            parent = tuple(map(int, parent.split(".", maxsplit=1)))
            if len(parent) == 1:
                parent = parent[0]
            graph.add_edge(parent, self.id, dep)

    @property
    def misc(self):
        """ Access the miscellaneousness of this word. """
        return self._misc

    @misc.setter
    def misc(self, value):
        """ Set the word's miscellaneousness value. """
        self._misc = value if self._is_null(value) == False else None

    @property
    def line_number(self):
        """ Access the line number from the original document, if set """
        return self._line_number

    @property
    def start_char(self):
        """ Access the start character index for this token in the raw text. """
        return self._start_char

    @start_char.setter
    def start_char(self, value):
        self._start_char = value

    @property
    def end_char(self):
        """ Access the end character index for this token in the raw text. """
        return self._end_char

    @end_char.setter
    def end_char(self, value):
        self._end_char = value

    @property
    def parent(self):
        """ Access the parent token of this word. In the case of a multi-word token, a token can be the parent of
        multiple words. Note that this should return a reference to the parent token object.
        """
        return self._parent

    @parent.setter
    def parent(self, value):
        """ Set this word's parent token. In the case of a multi-word token, a token can be the parent of
        multiple words. Note that value here should be a reference to the parent token object.
        """
        self._parent = value

    @property
    def pos(self):
        """ Access the universal part-of-speech of this word. Example: 'NOUN'"""
        return self._upos

    @pos.setter
    def pos(self, value):
        """ Set the word's universal part-of-speech value. Example: 'NOUN'"""
        self._upos = value if self._is_null(value) == False else None

    @property
    def coref_chains(self):
        """
        coref_chains points to a list of CorefChain namedtuple, which has a list of mentions and a representative mention.

        Useful for disambiguating words such as "him" (in languages where coref is available)

        Theoretically it is possible for multiple corefs to occur at the same word.  For example,
          "Chris Manning's NLP Group"
        could have "Chris Manning" and "Chris Manning's NLP Group" as overlapping entities
        """
        return self._coref_chains

    @coref_chains.setter
    def coref_chains(self, chain):
        """ Set the backref for the coref chains """
        self._coref_chains = chain

    @property
    def sent(self):
        """ Access the pointer to the sentence that this word belongs to. """
        return self._sent

    @sent.setter
    def sent(self, value):
        """ Set the pointer to the sentence that this word belongs to. """
        self._sent = value

    def __repr__(self):
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, cls=DocJSONEncoder)

    def __format__(self, spec):
        if spec == 'C':
            return self.to_conll_text(DEFAULT_OUTPUT_FIELDS)
        elif spec == 'P':
            return self.pretty_print()
        else:
            return str(self)

    def to_conll_text(self, fields=DEFAULT_OUTPUT_FIELDS):
        """
        Turn a word into a conll representation (10 column tab separated)
        """
        token_dict = self.to_dict(fields)
        return dict_to_conll_text(token_dict, '.')

    def to_dict(self, fields=DEFAULT_OUTPUT_FIELDS):
        """ Dumps the word into a dictionary.
        """
        word_dict = {}
        for field in fields:
            if getattr(self, field, None) is not None:
                word_dict[field] = getattr(self, field)
        return word_dict

    def pretty_print(self):
        """ Print the word in one line. """
        features = [ID, TEXT, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL]
        feature_str = ";".join(["{}={}".format(k, getattr(self, k)) for k in features if getattr(self, k) is not None])
        return f"<{self.__class__.__name__} {feature_str}>"

    def _is_null(self, value):
        return (value is None) or (value == '_')


class Span(StanzaObject):
    """ A span class that stores attributes of a textual span. A span can be typed.
    A range of objects (e.g., entity mentions) can be represented as spans.
    """

    def __init__(self, span_entry=None, tokens=None, type=None, doc=None, sent=None):
        """ Construct a span given a span entry or a list of tokens. A valid reference to a doc
        must be provided to construct a span (otherwise the text of the span cannot be initialized).
        """
        assert span_entry is not None or (tokens is not None and type is not None), \
                'Either a span_entry or a token list needs to be provided to construct a span.'
        assert doc is not None, 'A parent doc must be provided to construct a span.'
        self._text, self._type, self._start_char, self._end_char = [None] * 4
        self._tokens = []
        self._words = []
        self._doc = doc
        self._sent = sent

        if span_entry is not None:
            self.init_from_entry(span_entry)

        if tokens is not None:
            self.init_from_tokens(tokens, type)

    def init_from_entry(self, span_entry):
        self.text = span_entry.get(TEXT, None)
        self.type = span_entry.get(TYPE, None)
        self.start_char = span_entry.get(START_CHAR, None)
        self.end_char = span_entry.get(END_CHAR, None)

    def init_from_tokens(self, tokens, type):
        assert isinstance(tokens, list), 'Tokens must be provided as a list to construct a span.'
        assert len(tokens) > 0, "Tokens of a span cannot be an empty list."
        self.tokens = tokens
        self.type = type
        # load start and end char offsets from tokens
        self.start_char = self.tokens[0].start_char
        self.end_char = self.tokens[-1].end_char
        if self.doc is not None and self.doc.text is not None:
            self.text = self.doc.text[self.start_char:self.end_char]
        elif tokens[0].sent is tokens[-1].sent:
            sentence = tokens[0].sent
            if tokens[-1].end_char is not None and tokens[0].start_char is not None and sentence.tokens[0].start_char is not None:
                text_start = tokens[0].start_char - sentence.tokens[0].start_char
                text_end = tokens[-1].end_char - sentence.tokens[0].start_char
                self.text = sentence.text[text_start:text_end]
            else:
                text = []
                for token in tokens:
                    text.append(token.text)
                    text.append(token.spaces_after)
                self.text = "".join(text[:-1])
        else:
            # TODO: do any spans ever cross sentences?
            raise RuntimeError("Document text does not exist, and the span tested crosses two sentences, so it is impossible to extract the entity text!")
        # collect the words of the span following tokens
        self.words = [w for t in tokens for w in t.words]
        # set the sentence back-pointer to point to the sentence of the first token
        self.sent = tokens[0].sent

    @property
    def doc(self):
        """ Access the parent doc of this span. """
        return self._doc

    @doc.setter
    def doc(self, value):
        """ Set the parent doc of this span. """
        self._doc = value

    @property
    def text(self):
        """ Access the text of this span. Example: 'Stanford University'"""
        return self._text

    @text.setter
    def text(self, value):
        """ Set the span's text value. Example: 'Stanford University'"""
        self._text = value

    @property
    def tokens(self):
        """ Access reference to a list of tokens that correspond to this span. """
        return self._tokens

    @tokens.setter
    def tokens(self, value):
        """ Set the span's list of tokens. """
        self._tokens = value

    @property
    def words(self):
        """ Access reference to a list of words that correspond to this span. """
        return self._words

    @words.setter
    def words(self, value):
        """ Set the span's list of words. """
        self._words = value

    @property
    def type(self):
        """ Access the type of this span. Example: 'PERSON'"""
        return self._type

    @type.setter
    def type(self, value):
        """ Set the type of this span. """
        self._type = value

    @property
    def start_char(self):
        """ Access the start character offset of this span. """
        return self._start_char

    @start_char.setter
    def start_char(self, value):
        """ Set the start character offset of this span. """
        self._start_char = value

    @property
    def end_char(self):
        """ Access the end character offset of this span. """
        return self._end_char

    @end_char.setter
    def end_char(self, value):
        """ Set the end character offset of this span. """
        self._end_char = value

    @property
    def sent(self):
        """ Access the pointer to the sentence that this span belongs to. """
        return self._sent

    @sent.setter
    def sent(self, value):
        """ Set the pointer to the sentence that this span belongs to. """
        self._sent = value

    def to_dict(self):
        """ Dumps the span into a dictionary. """
        attrs = ['text', 'type', 'start_char', 'end_char']
        span_dict = dict([(attr_name, getattr(self, attr_name)) for attr_name in attrs])
        return span_dict

    def __repr__(self):
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, cls=DocJSONEncoder)

    def pretty_print(self):
        """ Print the span in one line. """
        span_dict = self.to_dict()
        feature_str = ";".join(["{}={}".format(k,v) for k,v in span_dict.items()])
        return f"<{self.__class__.__name__} {feature_str}>"
