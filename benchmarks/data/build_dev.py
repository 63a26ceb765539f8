"""Build `dev.json`, the retrieval benchmark's own dev set, in the LoCoMo JSON layout, from `dev_*.txt`.

The sources are written by hand, in a compact form that is easy to read and review:

    # sample: dev-en-1
    # speakers: Maya | Jonah
    ## 2023-03-04 10:12                      a session and when it took place
    Maya: Morning! ... #label                a turn; an optional trailing #label names it for the questions
    # questions
    single | question | answer | label, label   category | question | answer | its evidence turns

Categories map to LoCoMo's numbers: multi 1, temporal 2, open 3, single 4 (5, adversarial, is not used).

`dialogue_*.txt` are in the layout of the second held-out set (one-sentence memories about two people, and
dialogues marking the memories the next reply should bring up), built into `dialogues.json`:

    # sample: dlg-zh-1
    # people: 周琳 | 阿哲
    # memories
    周琳 z01 | 我在杭州一所小学当语文老师。      whose memory, its label | its sentence
    # dialogue d01 | z02, z05                    a dialogue, and the memories the next reply should bring up
    周琳: 哎，今天下班回家一开门……               its turns so far

`fresh_*.txt` (LoCoMo layout) and `fresh_dialogue_*.txt` (dialogues layout) are built apart, into
`fresh.json` and `fresh_dialogues.json`: data written for issue 26 and committed before any engine ran on it,
so that a change tuned on the dev set can be checked on data nobody tuned on. The conversations are
LoCoMo-sized (about 400-500 turns over 20 sessions spread over a year, 110 questions each, weighted to
multi-hop, temporal and open-domain questions); the dialogues are chat-app talk (long turns, slang, emoji
codes) whose memories are terse notes without a subject. Report them apart from the dev set; once a change
has been tuned on them they are dev data like the rest.

`long_*.txt` (LoCoMo layout) are built apart again, into `long.json`: two conversations whose turns are
as long as LoCoMo's (a mean of about 140 characters, a quarter over 200) where the other sets' turns are
short, written for measuring recall over long lines and committed before any engine ran on them. About 250
turns over 18 sessions of 2023 each, 60 questions split evenly over single-hop, multi-hop, temporal and
open-domain.

`blind_*.txt` (LoCoMo layout) and `blind_dialogue_*.txt` (dialogues layout), built into `blind.json` and
`blind_dialogues.json`, were written on 2026-12-03 by helpers who saw neither the engine nor the other sets'
questions, and committed before any engine ran on them: a conversation of LoCoMo's turn length whose
questions paraphrase their evidence (at most one content word shared, for about half), and two-person
dialogue sets in Chinese and English whose dialogues often reach their marked memories sideways (a kitten
offered, for "allergic to cat hair"), about 170 memories a file as in the held-out set.

`blind2_*.txt` and `blind2_dialogue_*.txt`, built into `blind2.json` and `blind2_dialogues.json`, were
written the same way on 2026-12-03 (a second round, once the first had been tuned on): a LoCoMo-length
conversation of 90 paraphrased questions, and dialogue sets in three kinds of Chinese chat (WeChat family
talk, young people's slang, middle-aged voice-message run-ons) and English texting, 170 memories and 40
dialogues a file, the marked memories reached by their own words, by paraphrase and sideways, about a third
each.

`blind3_time_*.txt`, built into `blind3_time.json`, were written the same way on 2026-12-03 (a third round)
for the times questions name: two conversations of 2024 (English and Chinese, 14 sessions each), whose 24
temporal questions each name the time of what they ask ("last Friday", "over Easter", "上周六", "端午",
"半个月前"; relative ones seen from the day after the last session) among events of the same kind that
recur over the year, and 6 questions each whose time word says nothing of when (a habit, a plan).

`blind4_dialogue_*.txt`, built into `blind4_dialogues.json`, were written the same way on 2026-12-04 (a
fourth round, after three had been tuned on): a Chinese and an English dialogue set of 170 and 160
memories and 40 dialogues each, two friends in other cities (former room-mates: a nurse in Changsha and a
game developer in Shenzhen; a vet in Tucson and a ferry mechanic in Seattle), the marked memories reached
by their own words, by paraphrase and sideways (13, 13 and 14 a file, by their writers' count), with
distractors among the memories (many allergies, several friends, both parents).

`blind5_dialogue_*.txt`, built into `blind5_dialogues.json`, were written the same way on 2026-12-04 (a
fifth round, after four had been tuned on): two Chinese sets (a couple living apart, a truck driver in
Chengdu and a kindergarten teacher in a Sichuan town; a grandmother in Harbin and her granddaughter, a
biology student in Guangzhou, her voice-to-text run-ons against the girl's slang) and an English one (a
paramedic in Glasgow and her brother, a sous-chef in Melbourne), 170, 170 and 160 memories and 40 dialogues
each, reached by their own words, by paraphrase and sideways (13-13-14, 13-13-14 and 13-12-15 by their
writers' count).

`blind6_dialogue_*.txt`, built into `blind6_dialogues.json`, were written the same way on 2026-12-04 (a sixth
round, to check a change measured on the first five: a dialogue's last line placed apart by the meaning
tier) and committed after that one measurement: two Chinese sets (former classmates, a pharmacist in Xi'an
and a photographer in Dali; a Chongqing taxi driver and his son in Hangzhou, the memories in the third
person) and an English one (friends in Cork and Toronto). Their writers were asked to put the hint that
calls a memory up in the last message for some dialogues and earlier for others.

`blind7_dialogue_*.txt`, built into `blind7_dialogues.json`, were written the same way on 2026-12-04 (a
seventh round, to check the broader words a specific thing calls up, `memory.broader`, whose table was
written and its weights chosen before these were) and committed after that one measurement: two Chinese
sets (cousins, a Chinese teacher in Luoyang and a delivery rider turned noodle-shop owner in Foshan; two
former sent-down youths in their sixties in Qingdao and Kunming, voice-to-text run-ons, half the memories in
the third person) and an English one (sisters-in-law, a dental hygienist in Auckland and a long-haul trucker
in Winnipeg). Their writers were told to make it hard, and it is: the reference finds 0.281 of the Chinese
memories @6 and 0.325 of the English.

`blind8_dialogue_*.txt`, built into `blind8_dialogues.json`, were written the same way on 2026-12-04 (an
eighth round, to check the broader words' table once more after Chinese rows were added to it) and committed
after that one measurement: two Chinese sets (university friends, a night-shift nurse in Hangzhou and a
vegetarian fitness coach in Chengdu, in young people's slang; a hardware-shop owner in Shenyang and his son,
a programmer in Shenzhen with a new baby, half the memories in the third person) and an English one (college
room-mates in their forties, a chemistry teacher in Austin and an airline pilot in Denver). The examples
their writers were given of a sideways memory named an escape room, coffee and a brewery, which the table
already held, and one English dialogue took the escape room.

`blind9_dialogue_*.txt`, built into `blind9_dialogues.json`, were written the same way on 2026-12-04 (a
ninth round, to check the broader words' table once its weights were final) and committed after that one
measurement; their writers were asked for chat as people write it, not made hard, with the marked memories
reached by a shared word, by paraphrase and by everyday knowledge, about a third each: two Chinese sets (a
brother and sister, a hotel cook in Xiamen and an accountant in Nanjing; two friends at a Guangzhou game
company, the memories in the third person) and an English one (a retired librarian in Dublin and her
grandson, a nursing student in Manchester).

`blind10_dialogue_*.txt`, built into `blind10_dialogues.json`, were written the same way on 2026-12-04 (a
tenth round, asked for in the same words as the ninth, with no example of a sideways memory given) to check
the table's last rows and a chat's own word for what its thing is (`broader.said`), and committed after
that one measurement: two Chinese sets (a retired teacher in Qingdao and her daughter, a biology student in
Shanghai; two army buddies in their forties, a ride-hailing driver in Zhengzhou and a farm-stay owner near
Guilin, half the memories in the third person) and an English one (neighbours in Cape Town, a pregnant
software tester and a retired firefighter).

`blind11_dialogue_*.txt`, built into `blind11_dialogues.json`, were written the same way on 2026-12-05 (an
eleventh round, asked for in blind 10's words) to check rows added to the broader table after blind 10 had
been looked at, and committed after that one measurement: two Chinese sets (high-school deskmates from
Changsha, a flight attendant in Guangzhou and a primary-school maths teacher with a toddler; a retired
history teacher in Xi'an and his granddaughter, a first-year student in Chengdu, half the memories in the
third person) and an English one (cousins, a vet nurse in Brisbane and a history PhD student in
Edinburgh).

`blind12_dialogue_*.txt`, built into `blind12_dialogues.json`, were written the same way on 2026-12-05 (a
twelfth round, asked for in blind 10's words, with no example of a sideways memory given) to check the
broader words' table as it stood at stop 44 on a round written after all of it, and committed after that
one measurement: two Chinese sets (a married couple in Chengdu, an emergency nurse on night shifts and a
hotpot restaurant owner; former roommates, a civil-service clerk in Harbin studying for a postgraduate
exam and a livestream host in Hangzhou, half the memories in the third person) and an English one (a
retired long-haul trucker in Winnipeg and his daughter, a sous-chef in Toronto). Chinese words 0.600 ->
0.713 @6 against the engine before the table (the reference 0.562, FTS5 0.619), with e5 0.700 -> 0.756;
English words 0.312 -> 0.463 (the reference 0.225, FTS5 0.275), with e5 0.425 -> 0.575.

`blind13_dialogue_*.txt`, built into `blind13_dialogues.json`, were written the same way on 2026-12-05 (a
thirteenth round, asked for in blind 10's words) to check the rows added to the broader words' table after
blind 12's misses had been looked at, and committed after that one measurement: two Chinese sets (a
mother with a fruit stall in Kunming and her son, a junior software engineer in Shenzhen; two women who
met at a parents' group, a taxi driver in Wuhan and a pharmacist in Tianjin, half the memories in the
third person) and an English one (college bandmates, a chemistry teacher in Austin and a wedding
photographer in Portland, Maine). The new rows were idle there: Chinese words 0.631 @6 with them or
without (0.550 before any table; the reference 0.506, FTS5 0.525), with e5 0.681 (0.613); English 0.613
(0.525; the reference 0.525, FTS5 0.400), with e5 0.637 (0.575).

`blind14_dialogue_*.txt`, built into `blind14_dialogues.json`, were written the same way on 2026-12-05 (a
fourteenth round, asked for in blind 10's words) to check the table once it had been widened from general
knowledge, and committed after that one measurement: two Chinese sets (a retired railway worker in
Lanzhou and his granddaughter, an architecture graduate student in Nanjing; two coworkers at a Guangzhou
logistics company, a forklift driver from a Guangxi village and an HR clerk from Shanghai, half the
memories in the third person) and an English one (a Wisconsin dairy farmer and his son, a marine biology
student in San Diego). Chinese words 0.588 -> 0.725 @6 against the engine before any table (the
reference 0.606, FTS5 0.600), with e5 0.631 -> 0.756; English 0.400 -> 0.500 (the reference 0.412, FTS5
0.362), with e5 0.487 -> 0.588.

`blind15_dialogue_*.txt`, built into `blind15_dialogues.json`, were written the same way on 2026-12-05 (a
fifteenth round, asked for in blind 10's words) to check a second widening of the table, and committed
after that one measurement: two Chinese sets (a long-distance couple, a kindergarten teacher in Qingdao
and a container-ship sailor; an aunt with a noodle shop in Taiyuan and her nephew, a delivery rider in
Beijing, half the memories in the third person) and an English one (hiking-club friends, an ER nurse in
Denver and a bakery owner in Savannah). Chinese words 0.475 -> 0.600 @6 against the engine before any
table (the reference 0.469, FTS5 0.494), with e5 0.569 -> 0.669; English 0.475 -> 0.637 (the reference
0.400, FTS5 0.375), with e5 0.525 -> 0.688.

`blind16_dialogue_*.txt`, built into `blind16_dialogues.json`, were written the same way on 2026-12-05 (a
sixteenth round, asked for in blind 10's words) to check a third widening of the table, and committed after
that one measurement: two Chinese sets (a retired fisherman in Xiamen and his daughter-in-law, a bank
teller; a hospital lab technician in Shijiazhuang and her younger brother, a soldier, half the memories in
the third person) and an English one (a retired Air Force mechanic in Tucson and his granddaughter, a
junior architect in Chicago). Chinese words 0.650 -> 0.787 @6 against the engine before any table (the
reference 0.600, FTS5 0.644), with e5 0.738 -> 0.838; English 0.525 -> 0.662 (the reference 0.487, FTS5
0.463), with e5 0.575 -> 0.675.

`blind17_dialogue_*.txt`, built into `blind17_dialogues.json`, were written the same way on 2026-12-05 (a
seventeenth round, asked for in blind 10's words) to check a Chinese broader word's larger share in a
dialogue (`memory.broader.IN_DIALOGUE`), and committed after that one measurement: two Chinese sets
(friends from a town in Anhui, a music teacher in Hefei and a hotel chef in Hangzhou; a long-distance bus
driver between Nanning and Guangzhou and his daughter, a law graduate student in Wuhan, half the memories
in the third person) and an English one (brothers, a firefighter in Halifax and a game developer in
Montreal). Chinese words 0.444 -> 0.606 @6 against the engine before any table (the reference 0.444, FTS5
0.494), with e5 0.500 -> 0.650; English 0.487 -> 0.588 (the reference 0.463, FTS5 0.512), with e5 0.662 ->
0.713.

`blind18_*.txt` (LoCoMo layout), built into `blind18.json`, were written on 2026-12-05 by helpers who saw
neither the engine nor any other set, and committed after one measurement: two conversations of LoCoMo's
size and turn length (a vet technician in Tucson and a bus driver in Portland, friends, over 2023; a retired
postal clerk in Asheville and her nephew, an electrician in Columbus, over 2022), 20 sessions and 430 turns
each, 100 questions each (30 single-hop, 25 multi-hop, 25 temporal, 20 open-domain) asked the way LoCoMo's
annotators ask, plainly and mostly in the conversation's own words. It is the LoCoMo-layout set the
reference finds about as hard as the held-out LoCoMo conversations: evidence @10, words 0.662 (e5 0.683),
FTS5 0.515, the reference 0.476 (0.466 on the held-out set); the English kinds written by hand
(`build_kinds.ENGLISH`), added just before, were idle there.

`blind19_*.txt`, built into `blind19.json`, were written the same way on 2026-12-05, after blind 18 had been
looked at, to check what was changed with it in view, and committed after that one measurement: two
conversations of the same size (university friends, a physiotherapist in Valencia and a chef in Halifax,
over 2023; a retired TV repairman in Dayton and a dental hygienist who volunteer at a repair café, over
2022). Evidence @10 with words, the engine before those changes -> the hand-written kinds -> a long line's
share of the room (`transcript.recall.SHARE`): 0.625 -> 0.627 -> 0.641 (@6 0.556 -> 0.555 -> 0.571), with
e5 0.685 -> 0.684 -> 0.693; the answer's words quoted 0.580 -> 0.591; FTS5 0.441, the reference 0.382.

`blind20_*.txt`, built into `blind20.json`, were written the same way on 2026-12-05, after the kinds for a
competitive streak, music and adventure, and committed after one measurement: two more conversations of the
same size (friends from a watercolour class in Leeds, a primary teacher and a bike mechanic, over 2023; a
dental hygienist in Portland and her brother, a chemistry teacher in Austin, over 2022). Evidence @10 with
words, the engine before this stop's changes -> with all the kinds -> with a long line's share of the room:
0.569 -> 0.571 -> 0.591 (@6 0.465 -> 0.467 -> 0.481), with e5 0.656 -> 0.656 -> 0.670 (@6 0.537 -> 0.540 ->
0.562); the answer's words quoted 0.494 -> 0.497 -> 0.497; FTS5 0.401, the reference 0.328.

`blind21_dialogue_*.txt`, built into `blind21_dialogues.json`, were written the same way as the dialogue
rounds before on 2026-12-05, after the query's own floor for e5 (`memory.recall.nearest`) had been measured
on notes and lines, and committed after that one measurement: two Chinese sets (cousins, a heart-ward
nurse in Chengdu and a gym owner in Xi'an; a retired ship's chief engineer in Qingdao and his daughter, in
foreign trade in Guangzhou), many of the dialogues pointing at a memory by its situation alone. Words 0.606
@6 (the reference 0.456, FTS5 0.469); with e5 0.706, and 0.650 with the query's own floor for notes too,
the worst of 17 rounds for it: notes kept the person's floor.

`blind21_*.txt` (LoCoMo layout), built into `blind21.json`, were written like blind 18-20 on the same day,
after the query's own floor for lines, and committed after one measurement: two conversations (old
university friends, a hydrologist in York and a tram driver in Edinburgh, over 2023; two former colleagues
at a Leeds print works, one of them starting a screen-printing studio, from June 2022 to July 2023), 430 and
442 turns, 100 questions each. Evidence @10: words 0.636 (@6 0.570), FTS5 0.425, the reference 0.447; with
e5 0.683 -> 0.690 with the query's own floor for lines (@6 0.584 -> 0.587), the answer's words quoted
0.628 -> 0.636.

`blind22_*.txt`, built into `blind22.json`, were written the same way on the same day, after everything
above, and committed after one measurement: two conversations (a physiotherapist in Manchester and a
theatre sound engineer in Edinburgh, friends from a university choir, over 2023; two sisters, a bus driver
in Bristol who takes up beekeeping and an architect who moves from Glasgow to Rotterdam, from June 2022 to
July 2023), 449 turns each, 100 questions each. Evidence @10: words 0.721 (@6 0.648), FTS5 0.485, the
reference 0.517; with e5 0.738 -> 0.754 with the query's own floor for lines (@6 0.657 -> 0.667), the
answer's words quoted 0.674 -> 0.687.

`blind23_*.txt`, built into `blind23.json`, were written the same way on 2026-12-05, after the lean off a
named speaker's direction (`mneme_core.meaning.speakers`), and committed after one measurement: two
conversations over 2023 (cousins, a veterinary nurse in Cardiff and a trainee signaller in Aberdeen; former
flatmates, a chemistry teacher in Norwich and a junior architect in Belfast), 461 and 466 turns, 100
questions each. Evidence @10: words 0.633 (@6 0.530), FTS5 0.394, the reference 0.457; with e5 0.679 ->
0.685 with the lean (@6 0.613 -> 0.600). Their 48 adversarial questions (`--adversarial`): words 0.708,
FTS5 0.500, the reference 0.562, e5 0.854 -> 0.812 with the lean (@6 0.750 both): two questions lost where
the six sets before gained ten.

`blind24_*.txt`, built into `blind24.json`, were written the same way on 2026-12-05, after a line's
length came to weigh its similarity and its context (`mneme_core.transcript.recall.substance`), and
committed after one measurement: two conversations over 2023 (university friends, a hospital pharmacist and
a man whose greyhound steals socks; old neighbours, a GP receptionist in Buxton and a canoe builder in Nova
Scotia), 475 and 471 turns of 110 characters at the median, few of them short (1% and 6% under 50
characters, against 47% in blind 23), 100 questions each. Evidence @10: words 0.521 -> 0.533 with the
change (@6 0.457 -> 0.463), FTS5 0.363, the reference 0.328: the hardest round yet; with e5 0.631 -> 0.633
(@6 0.544 -> 0.543). Their 59 adversarial questions (`--adversarial`): words 0.644, FTS5 0.424, the
reference 0.390, e5 0.780 -> 0.746 with the change (@6 0.712 -> 0.627).

`blind25_*.txt`, built into `blind25.json`, were written the same way on the same day, after the length
rule too, asked for a chat app's mix of turns (short replies and reactions among the news), and committed
after one measurement: two conversations over 2023 (friends from an evening class, an Italian teacher and
a lecturer whose boiler dies at New Year; a retired head baker and the trainee he mentored), 471 and 476
turns of 51 characters at the median, half of them under 50, 100 questions each. Evidence @10: words
0.509 -> 0.511 with the change (@6 0.436 both), FTS5 0.300, the reference 0.308; with e5 0.631 -> 0.644
(@6 0.542 -> 0.561). Their 55 adversarial questions: words 0.618, FTS5 0.382, the reference 0.345, e5
0.727 -> 0.745 with the change (@6 0.673 -> 0.691).

`blind26_*.txt`, built into `blind26.json`, were written the same way on the same day, while a line came
to count the nearer of its two exchanges and half of the other (`mneme_core.transcript.recall._exchanges`),
asked for turns of a sentence or two as LoCoMo's are, and committed after one measurement: two
conversations over 2023 (university friends, a fish-health inspector in Glasgow whose greyhound has a lump
removed and a sound engineer in Lisbon who mends a Vespa; a retired Acadian nurse in Dieppe, New Brunswick,
who moves into a seniors' residence, and her grandson who starts a coffee van in Darwin), 474 and 476
turns of 85 and 83 characters at the median, 100 questions each. Evidence @10: words 0.590 (@6 0.530),
FTS5 0.428, the reference 0.409; with e5 0.657 -> 0.678 with the change (@6 0.595 -> 0.615). Their 54
adversarial questions: words 0.796, FTS5 0.481, the reference 0.500, e5 0.889 -> 0.907 with the change
(@6 0.852 -> 0.889).

`blind27_*.txt`, built into `blind27.json`, were written the same way on the same day, after the whole
of that stop's changes to lines (both exchanges, every match's context, `ANSWER` 1.2 and `WHEN` 3 in
`mneme_core.transcript.recall`), asked for LoCoMo's style (friends catching up every week or two), and
committed after one measurement: two conversations over 2023 (a science teacher and beekeeper in Madison
and a long-haul driver in Memphis who paints watercolours; a ferry deckhand in Oban who restores a rowing
boat and a bike-shop owner in Leeds who learns to cook), 474 and 476 turns of 95 and 100 characters at the
median, 100 questions each. Evidence @10: words 0.648 -> 0.656 with the changes (@6 0.580 -> 0.597), FTS5
0.432, the reference 0.416; with e5 0.696 -> 0.706 (@6 0.628 -> 0.647). Their 56 adversarial questions:
words 0.875 -> 0.893, FTS5 0.589, the reference 0.554, e5 0.911 both (@6 0.821 -> 0.875).

`blind28_*.txt`, built into `blind28.json`, were written the same way on 2026-12-05, asked for LoCoMo's
style with topics that recur on purpose (several swims, gigs, boat jobs, memoir chapters), so that a
question must pick the right one by its detail or its time, and committed before any engine ran on them:
two conversations of a year (a veterinary nurse in Bristol who swims in open water and fosters greyhounds,
and a baker in Gdańsk who restores a sailing boat and learns the cello; a semi-retired court interpreter in
Tucson writing a family memoir, and a junior doctor in Accra who plays in a highlife band and trains for a
marathon), 483 turns each, of 75 and 68 characters at the median, 100 questions each. They were measured
once before and after each of that session's two changes to lines (two lines each side of a match as its
context, then a line that asks counting `QUESTION` of its score, in `mneme_core.transcript.recall`).
Evidence @10: words 0.701 -> 0.698 -> 0.713 (@6 0.626 -> 0.644 -> 0.650), FTS5 0.458, the reference
0.471; with e5 0.780 -> 0.783 -> 0.797 (@6 0.708 -> 0.711 -> 0.717). Their 45 adversarial questions: words
0.800 -> 0.822 -> 0.844, e5 0.889 -> 0.911 -> 0.911.

`blind29_*.txt`, built into `blind29.json`, were written the same way on the same day, after both those
changes, asked for LoCoMo's habit of turns that tell something and ask back in one ("We adopted a beagle
last week! How's the new job?"), so that half their turns ask and a tenth of their evidence turns do
(blind 28: a third and a fiftieth), and committed after one measurement: two conversations of a year (a
hospital pharmacist in Marseille who sings in a choir and plans her wedding, and a history teacher in
Cardiff who coaches girls' rugby and restores a camper van; a retired postwoman in Dunedin who keeps an
allotment and learns te reo Māori, and a software tester in Montevideo who saves to open a café), 470
and 473 turns of 86 and 89 characters at the median, 100 questions each. Evidence @10, before both
changes and after: words 0.619 -> 0.697 (@6 0.550 -> 0.598), FTS5 0.476, the reference 0.428; with e5
0.738 -> 0.764 (@6 0.657 -> 0.688). Their 53 adversarial questions: words 0.717 -> 0.849, e5 0.906 both
(@6 0.792 -> 0.830).

`blind30_*.txt`, built into `blind30.json`, were written the same way on the same day, after that
session's changes, in LoCoMo's style with no request but topics that recur, and committed after one
measurement of the code of the moment (nothing was changed after it): two conversations of a year (a
structural engineer in Nairobi who runs a coding club for girls and trains a rescue dog, and a ferry
mechanic in Bergen who carves wood and plans a cycling trip along the Danube; a teacher in Valparaíso who
renovates a hillside house and learns to surf, and a quiz host and nurse in Galway who cares for his
grandfather and writes a crime novel), 467 and 471 turns of 70 and 68 characters at the median, 100
questions each. Evidence @10: words 0.679 (@6 0.594), FTS5 0.416, the reference 0.472, e5 0.749 (@6
0.688). Their 44 adversarial questions: words 0.818, the reference 0.523, e5 0.886.

`blind31_dialogue_*.txt`, built into `blind31_dialogues.json`, were written the same way on the same day
in the dialogue layout, in Chinese, asked for dialogues that reach their memory sideways, and committed
before any engine ran on them: friends (a physiotherapist in 成都 who climbs, and a long-distance bus
driver from 西安 who learns the erhu) and cousins (a game artist in 深圳 preparing her wedding, and a
physics teacher in 长沙 who runs marathons), 170 memories and 40 dialogues a file. Measured once before
and after a dialogue so far's similar notes became its nearest above its mean similarity
(`mneme_core.memory.recall.most_similar`), @6 / @10: words 0.637 / 0.731, the reference 0.556 / 0.569,
e5 0.625 / 0.731 -> 0.675 / 0.775.

`blind32_dialogue_*.txt`, built into `blind32_dialogues.json`, were written the same way on the same day,
after that change, and committed after one measurement (nothing was changed after it): old classmates (a
pastry chef in 杭州 learning Japanese, and a firefighter in 青岛 with a bad knee who fishes) and hiking
friends (a diabetic accountant in 昆明 who keeps bees, and a delivery rider in 重庆 studying for the
civil-service exam), 170 memories and 40 dialogues a file. @6 / @10: words 0.644 / 0.731, the reference
0.556 / 0.619, e5 0.700 / 0.781 (the code before the change: 0.631 / 0.731).

`blind33_dialogue_*.txt`, built into `blind33_dialogues.json`, were written the same way on 2026-12-05 in
the dialogue layout, in Chinese, and committed before any engine ran on them: an uncle and his niece (a
retired railway worker in 洛阳 who grows vegetables on his roof, his messages voice-to-text run-ons with
no punctuation, and a UX designer in 北京 who climbs and is vegetarian) and former colleagues (a night-shift
nurse in 厦门 with a toddler, learning to sail, and a 螺蛳粉 cook in 南宁 with gout), 170 memories and 40
dialogues a file, reached by their own words, by paraphrase and sideways (13-13-14 each, by their writer's
count), the hint in the last message for about half. Measured once before and after a note that states a
caution came to count 1.3 times in a chat (`mneme_core.memory.caution`), @6 / @10: words 0.731 / 0.762 ->
0.725 / 0.775, FTS5 0.575 / 0.669, the reference 0.600 / 0.644, e5 0.744 / 0.800 -> 0.762 / 0.856.

`blind34_dialogue_*.txt`, built into `blind34_dialogues.json`, were written the same way on the same day,
after cautions came to count in a chat, and committed before any engine ran on them: cousins (a music
teacher in 苏州 who plays the 古筝 and renovates an old flat, and a cargo pilot in 郑州 who collects vinyl and
is moving abroad; 170 memories) and old flatmates (a wildlife photographer in Cape Town restoring a camper
van, and a headteacher in Leeds learning Portuguese; 160 memories), 40 dialogues a file. Their writer was
asked to mark all kinds of memories, not mostly health: 3 of the 42 marked in each file are health facts.
Measured once, before and after cautions (`mneme_core.memory.caution`), @6 / @10: Chinese words 0.725 /
0.800 -> 0.750 / 0.825, e5 0.825 / 0.875 -> 0.850 / 0.875 (FTS5 0.775 / 0.825, the reference 0.750 /
0.800); English words 0.812 / 0.850 -> 0.825 / 0.850, e5 0.850 / 0.875 both (FTS5 0.800 / 0.825, the
reference 0.725 / 0.787).

`blind35_dialogue_*.txt`, built into `blind35_dialogues.json`, were written the same way on 2026-12-05, in
Chinese and harder on purpose (long voice-to-text run-ons, dialect and internet slang, many similar
memories, the hint earlier than the last message in half the dialogues), and committed before any engine
ran on them: old army comrades (a retired 重庆 bus driver keeping bees under 仙女山, and a 回族 早茶 owner in
吴忠 who races pigeons) and festival friends (an ICU night nurse in 广州 from 顺德 who writes in 粤语, and a
gym trainer and stand-up comic in 上海 from 沈阳), 170 memories and 40 dialogues a file, 13-13-14 by own
words, paraphrase and sideways, about a fifth of the marked memories health or can't-do facts.

Run `python benchmarks/data/build_dev.py` after editing a source; the output is committed beside them.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
CATEGORIES = {"multi": 1, "temporal": 2, "open": 3, "single": 4}
LABEL = re.compile(r"\s+#([\w-]+)\s*$")


def locomo_date(stamp: str) -> str:
    """ "2023-05-08 13:56" as LoCoMo writes it: "1:56 pm on 8 May, 2023"."""
    t = datetime.strptime(stamp, "%Y-%m-%d %H:%M")
    return f"{t.hour % 12 or 12}:{t.minute:02d} {'am' if t.hour < 12 else 'pm'} on {t.day} {t:%B}, {t.year}"


def parse(path: Path) -> dict:
    sample_id, speakers, sessions, labels, qa = "", [], [], {}, []
    in_questions = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("# sample:"):
            sample_id = line.split(":", 1)[1].strip()
        elif line.startswith("# speakers:"):
            speakers = [s.strip() for s in line.split(":", 1)[1].split("|")]
        elif line == "# questions":
            in_questions = True
        elif line.startswith("## "):
            sessions.append({"at": line[3:].strip(), "turns": []})
        elif in_questions:
            category, question, answer, evidence = (part.strip() for part in line.split("|"))
            missing = [e.strip() for e in evidence.split(",") if e.strip() not in labels]
            if missing:
                raise SystemExit(f"{path.name}:{number}: unknown labels {missing}")
            ids = [labels[e.strip()] for e in evidence.split(",")]
            qa.append(
                {"question": question, "answer": answer, "evidence": ids, "category": CATEGORIES[category]}
            )
        else:
            speaker, said = line.split(":", 1)
            if speaker not in speakers:
                raise SystemExit(f"{path.name}:{number}: unknown speaker {speaker!r}")
            found = LABEL.search(said)
            if found:
                said = said[: found.start()]
            dia_id = f"D{len(sessions)}:{len(sessions[-1]['turns']) + 1}"
            if found:
                if found[1] in labels:
                    raise SystemExit(f"{path.name}:{number}: label {found[1]!r} used twice")
                labels[found[1]] = dia_id
            sessions[-1]["turns"].append({"speaker": speaker, "dia_id": dia_id, "text": said.strip()})
    conversation: dict = {"speaker_a": speakers[0], "speaker_b": speakers[1]}
    for i, session in enumerate(sessions, 1):
        conversation[f"session_{i}_date_time"] = locomo_date(session["at"])
        conversation[f"session_{i}"] = session["turns"]
    return {"sample_id": sample_id, "conversation": conversation, "qa": qa}


def parse_dialogues(path: Path) -> dict:
    """A `dialogue_*.txt` source as one sample: its people, memories and dialogues."""
    sample: dict = {"sample_id": "", "people": [], "memories": [], "dialogues": []}
    labels: set[str] = set()
    in_memories = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("# sample:"):
            sample["sample_id"] = line.split(":", 1)[1].strip()
        elif line.startswith("# people:"):
            sample["people"] = [s.strip() for s in line.split(":", 1)[1].split("|")]
        elif line == "# memories":
            in_memories = True
        elif line.startswith("# dialogue "):
            in_memories = False
            name, marked = (part.strip() for part in line[len("# dialogue ") :].split("|"))
            wanted = [m.strip() for m in marked.split(",") if m.strip()]
            if not wanted or set(wanted) - labels:
                raise SystemExit(f"{path.name}:{number}: unknown or no memories {wanted}")
            sample["dialogues"].append({"id": name, "turns": [], "memories": wanted})
        elif in_memories:
            head, said = (part.strip() for part in line.split("|", 1))
            who, label = head.rsplit(" ", 1)
            if who not in sample["people"] or label in labels:
                raise SystemExit(f"{path.name}:{number}: unknown person or label used twice: {head!r}")
            labels.add(label)
            sample["memories"].append({"id": label, "about": who, "text": said})
        else:
            speaker, said = (part.strip() for part in line.split(":", 1))
            if speaker not in sample["people"]:
                raise SystemExit(f"{path.name}:{number}: unknown speaker {speaker!r}")
            sample["dialogues"][-1]["turns"].append({"speaker": speaker, "text": said})
    return sample


def build(prefix: str, out: str) -> None:
    """The `<prefix>_*.txt` sources of the LoCoMo layout into `out`."""
    samples = [parse(path) for path in sorted(HERE.glob(f"{prefix}_*.txt")) if "dialogue_" not in path.name]
    (HERE / out).write_text(json.dumps(samples, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for s in samples:
        turns = sum(len(v) for k, v in s["conversation"].items() if re.fullmatch(r"session_\d+", k))
        print(f"{s['sample_id']}: {turns} turns, {len(s['qa'])} questions", file=sys.stderr)


def build_dialogues(pattern: str, out: str) -> None:
    dialogues = [parse_dialogues(path) for path in sorted(HERE.glob(pattern))]
    (HERE / out).write_text(json.dumps(dialogues, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for s in dialogues:
        print(
            f"{s['sample_id']}: {len(s['memories'])} memories, {len(s['dialogues'])} dialogues",
            file=sys.stderr,
        )


def main() -> int:
    build("dev", "dev.json")
    build_dialogues("dialogue_*.txt", "dialogues.json")
    build("fresh", "fresh.json")
    build_dialogues("fresh_dialogue_*.txt", "fresh_dialogues.json")
    build("long", "long.json")
    build("blind", "blind.json")
    build_dialogues("blind_dialogue_*.txt", "blind_dialogues.json")
    build("blind2", "blind2.json")
    build_dialogues("blind2_dialogue_*.txt", "blind2_dialogues.json")
    build("blind3_time", "blind3_time.json")
    build_dialogues("blind4_dialogue_*.txt", "blind4_dialogues.json")
    build_dialogues("blind5_dialogue_*.txt", "blind5_dialogues.json")
    build_dialogues("blind6_dialogue_*.txt", "blind6_dialogues.json")
    build_dialogues("blind7_dialogue_*.txt", "blind7_dialogues.json")
    build_dialogues("blind8_dialogue_*.txt", "blind8_dialogues.json")
    build_dialogues("blind9_dialogue_*.txt", "blind9_dialogues.json")
    build_dialogues("blind10_dialogue_*.txt", "blind10_dialogues.json")
    build_dialogues("blind11_dialogue_*.txt", "blind11_dialogues.json")
    build_dialogues("blind12_dialogue_*.txt", "blind12_dialogues.json")
    build_dialogues("blind13_dialogue_*.txt", "blind13_dialogues.json")
    build_dialogues("blind14_dialogue_*.txt", "blind14_dialogues.json")
    build_dialogues("blind15_dialogue_*.txt", "blind15_dialogues.json")
    build_dialogues("blind16_dialogue_*.txt", "blind16_dialogues.json")
    build_dialogues("blind17_dialogue_*.txt", "blind17_dialogues.json")
    build("blind18", "blind18.json")
    build("blind19", "blind19.json")
    build("blind20", "blind20.json")
    build_dialogues("blind21_dialogue_*.txt", "blind21_dialogues.json")
    build("blind21", "blind21.json")
    build("blind22", "blind22.json")
    build("blind23", "blind23.json")
    build("blind24", "blind24.json")
    build("blind25", "blind25.json")
    build("blind26", "blind26.json")
    build("blind27", "blind27.json")
    build("blind28", "blind28.json")
    build("blind29", "blind29.json")
    build("blind30", "blind30.json")
    build_dialogues("blind31_dialogue_*.txt", "blind31_dialogues.json")
    build_dialogues("blind32_dialogue_*.txt", "blind32_dialogues.json")
    build_dialogues("blind33_dialogue_*.txt", "blind33_dialogues.json")
    build_dialogues("blind34_dialogue_*.txt", "blind34_dialogues.json")
    build_dialogues("blind35_dialogue_*.txt", "blind35_dialogues.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
