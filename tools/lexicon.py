"""Plain-language descriptions of the AffectNet-8 expressions and of social/affective cues.

Used on both sides of text-side retrieval: clip descriptors are written with these phrases, and the
offline reasoner maps vague queries onto labels by sentence-embedding similarity to them. The
descriptions paraphrase the AffectNet annotation guidelines (Mollahosseini et al., 2017) and the
situations commonly used as elicitors in affective computing; they are not tuned to any test clip.
"""

from __future__ import annotations

EMOTION_DESCRIPTIONS: dict[str, list[str]] = {
    "neutral": ["calm, composed, neutral face", "speaking evenly, matter-of-fact, no strong feeling",
                "listening attentively with a relaxed face"],
    "happiness": ["smiling and laughing, happy, amused, enjoying it", "joy, delight, fun, pleased, cheerful",
                  "excited and enthusiastic, having a good time"],
    "sadness": ["sad, unhappy, downcast face, close to tears", "feeling left out, lonely, ignored, excluded",
                "disappointed, hurt, grieving, dejected"],
    "surprise": ["surprised, astonished, mouth open, eyebrows raised", "shocked, startled, caught off guard",
                 "amazed by something unexpected"],
    "fear": ["afraid, scared, anxious, worried face", "nervous, tense, uneasy, frightened",
             "panicking, threatened, alarmed"],
    "disgust": ["disgusted, repulsed, grimacing, nose wrinkled", "revolted, grossed out, distaste",
                "finding something distasteful or offensive"],
    "anger": ["angry, furious, frowning, shouting", "annoyed, irritated, frustrated, hostile",
              "defensive, arguing, confrontational, heated"],
    "contempt": ["contemptuous, scornful, smirking, eye-rolling", "dismissive, looking down on someone, sneering",
                 "disdainful, mocking, condescending"],
}

#: Cue name -> phrases. Cues name the kind of evidence a query asks for (Social Genome modalities).
CUE_DESCRIPTIONS: dict[str, list[str]] = {
    "speech": ["what someone says, mentions, talks about, tells", "words spoken, a remark, a statement"],
    "facial_expression": ["facial expression, face shows a feeling", "smile, frown, grimace, tears"],
    "gaze": ["who looks at whom, eye contact, looking away", "ignored, nobody looks at her, being watched"],
    "gesture": ["pointing, hand gestures, waving, arms crossed", "animated hand movements, gesturing"],
    "voice": ["tone of voice, loud, shouting, fast speech", "voice trembles, raised voice, whispering"],
    "group": ["the audience, the crowd, everyone, the group", "people together reacting"],
}

#: Cue -> Social Genome modality tag of the evidence that answers it.
CUE_MODALITY: dict[str, str] = {
    "speech": "verbal",
    "facial_expression": "visual",
    "gaze": "visual",
    "gesture": "visual",
    "voice": "vocal",
    "group": "visual",
}

#: Words that name a person in a query; mapped to a role description.
PERSON_WORDS: dict[str, str] = {
    "she": "a woman", "her": "a woman", "woman": "a woman", "girl": "a girl", "he": "a man", "him": "a man",
    "his": "a man", "man": "a man", "boy": "a boy", "they": "a group", "audience": "the audience",
    "crowd": "the audience", "performer": "the performer", "speaker": "the speaker", "someone": "anyone",
    "somebody": "anyone", "everyone": "everyone", "people": "people", "i": "the camera wearer",
}
