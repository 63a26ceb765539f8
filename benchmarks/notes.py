"""Synthetic notes and queries for the mneme benchmarks (en and zh, with the same structure).

In the spirit of the reference study (mneme-llm-spec.md §4.1): 20 templates per language (a template fixes the
note's kind), slot vocabularies (50 names, 40 cities, 30 foods, 25 activities, 12 animals, 20 pet names,
18 jobs, 10 relatives), a detail clause on 85 % of notes; kinds ≈ 24 % fact, 19 % preference, 33 % episode,
14 % plan, 10 % reflection; importance 1/2/3/4 = 10/45/30/15 % plus exactly 3 notes at importance 5 (the
indices in `PINNED`); ≈5 % of fact/plan notes carry one of 7 keys; `happened_at` over the past two years
(plans 1-120 days ahead). Each note has its own RNG, `random.Random(f"{seed}-{lang}-{i}")`, so note i is the
same whatever N is, and a run can resume from any index. Queries: 1-3 slot words, some in a short frame
("tell me about …", "…吗"). Standard library only: the reference worker imports this in its own venv.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

LANGS = ("en", "zh")
PINNED = (10, 500, 900)  # the three importance-5 notes (so sizes below 901 have fewer than three)
DAY = 86_400.0

KINDS = ("fact", "preference", "episode", "plan", "reflection")
KIND_WEIGHTS = (24, 19, 33, 14, 10)
IMPORTANCE = (1, 2, 3, 4)
IMPORTANCE_WEIGHTS = (10, 45, 30, 15)
KEY_SHARE = 0.05
DETAIL_SHARE = 0.85

# One category per line (a category may go on over several lines); the i-th en and zh words need not match.
_VOCAB = {
    "en": """
name Alice Ben Chloe Daniel Emma Felix Grace Henry Iris Jack Kate Liam Mia Noah Olivia Paul Quinn Rosa Sam
name Tara Uma Victor Wendy Xavier Yara Zoe Adam Bella Carl Diana Ethan Fiona George Hannah Ivan Julia Kevin
name Laura Marco Nina Oscar Priya Ravi Sofia Tom Vera Will Yuki Zach Lena
city Kyoto Paris Berlin Lisbon Tokyo Osaka Seoul Taipei Shanghai Beijing Hangzhou Chengdu London Dublin
city Madrid Rome Vienna Prague Oslo Helsinki Boston Chicago Denver Seattle Toronto Vancouver Sydney Melbourne
city Auckland Lima Havana Cairo Istanbul Athens Nairobi Mumbai Bangkok Hanoi Singapore Montreal
food ramen sushi pizza tacos dumplings curry paella pho hotpot croissants pasta burgers kimchi falafel
food lasagna risotto noodles tempura bagels pancakes waffles gelato cheesecake brisket oysters burritos
food donuts mochi baklava chowder
activity hiking swimming cycling running climbing skiing surfing yoga chess painting gardening fishing
activity camping dancing baking knitting photography karaoke skating tennis badminton bowling pottery
activity sailing kayaking
animal cat dog rabbit hamster parrot turtle goldfish ferret lizard hedgehog canary pony
pet Biscuit Pepper Luna Milo Coco Bean Ziggy Nugget Pumpkin Oreo Toby Maple Sunny Peanut Ginger Bubbles
pet Shadow Pixel Tofu Kiwi
job nurse teacher engineer chef designer pilot lawyer doctor farmer barista writer dentist architect
job plumber librarian photographer accountant programmer
rel sister brother mother father cousin friend neighbour boss coworker roommate
""",
    "zh": """
name 小明 小红 李娜 王伟 张敏 刘洋 陈静 杨帆 赵磊 黄丽 周杰 吴芳 徐强 孙悦 马超 朱琳 胡斌
name 郭靖 林峰 何欣 高远 罗兰 郑爽 梁宇 谢婷 宋佳 唐磊 韩雪 冯涛 邓超 曹颖 彭程 曾黎 萧然
name 田甜 董洁 袁泉 潘越 蒋勤 蔡明 余晖 杜鹃 叶子 程潇 魏晨 苏菲 吕方 丁一 沈腾 姜文
city 京都 巴黎 柏林 里斯本 东京 大阪 首尔 台北 上海 北京 杭州 成都 伦敦 都柏林 马德里
city 罗马 维也纳 布拉格 奥斯陆 赫尔辛基 波士顿 芝加哥 丹佛 西雅图 多伦多 温哥华 悉尼
city 墨尔本 奥克兰 利马 哈瓦那 开罗 伊斯坦布尔 雅典 内罗毕 孟买 曼谷 河内 新加坡 蒙特利尔
food 拉面 寿司 披萨 塔可 饺子 咖喱 海鲜饭 河粉 火锅 可颂 意面 汉堡 泡菜 炸豆丸 千层面
food 烩饭 面条 天妇罗 贝果 煎饼 华夫饼 冰淇淋 芝士蛋糕 烤牛胸 生蚝 墨西哥卷 甜甜圈
food 麻薯 果仁蜜饼 海鲜汤
activity 徒步 游泳 骑车 跑步 攀岩 滑雪 冲浪 瑜伽 下棋 画画 园艺 钓鱼 露营 跳舞 烘焙
activity 织毛衣 摄影 唱歌 滑冰 网球 羽毛球 保龄球 陶艺 帆船 皮划艇
animal 猫 狗 兔子 仓鼠 鹦鹉 乌龟 金鱼 雪貂 蜥蜴 刺猬 金丝雀 小马
pet 豆豆 球球 咪咪 旺财 花花 团子 可乐 雪球 布丁 饼干 奶茶 糖糖 毛毛 小黑 大黄 阿福 年糕
pet 汤圆 芝麻 橘子
job 护士 老师 工程师 厨师 设计师 飞行员 律师 医生 农民 咖啡师 作家 牙医 建筑师 水管工
job 图书管理员 摄影师 会计 程序员
rel 姐姐 哥哥 妈妈 爸爸 表妹 朋友 邻居 老板 同事 室友
""",
}


def _words(block: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in block.strip().splitlines():
        category, *words = line.split()
        out.setdefault(category, []).extend(words)
    return out


WORDS = {lang: _words(block) for lang, block in _VOCAB.items()}

# kind | key (- for none) | en template | zh template. Slots: name, name2, city, food, food2, activity,
# activity2, animal, pet, job, rel. A note takes its template's kind; seven keys in all.
_TEMPLATES = """
fact | user.pet | Has a {animal} named {pet} | 养了一只叫{pet}的{animal}
fact | user.city | Lives in {city} and works as a {job} | 住在{city}，是一名{job}
fact | user.family | Their {rel} {name} is a {job} in {city} | 他的{rel}{name}在{city}当{job}
fact | user.job | Works as a {job} and commutes by bike | 工作是{job}，每天骑车上班
fact | user.hometown | Grew up in {city} near a {food} shop | 在{city}长大，家附近有一家{food}店
preference | - | Loves {food} but hates {food2} | 很爱吃{food}，但讨厌{food2}
preference | - | Prefers {activity} to {activity2} on weekends | 周末更喜欢{activity}而不是{activity2}
preference | - | Favourite city is {city} because of the {food} | 最喜欢的城市是{city}，因为那里的{food}
preference | - | Would like a {animal} someday, maybe called {pet} | 以后想养一只{animal}，也许叫它{pet}
episode | - | Went {activity} in {city} with {name} | 和{name}去{city}{activity}
episode | - | Had {food} with {name} in {city} | 和{name}在{city}吃了{food}
episode | - | {pet} the {animal} got sick and went to the vet | {animal}{pet}生病了，去看了兽医
episode | - | Met {name}, a {job} from {city} | 认识了{name}，一位来自{city}的{job}
episode | - | Tried {activity} for the first time | 第一次尝试{activity}
episode | - | Cooked {food} for their {rel} {name} | 给{rel}{name}做了{food}
plan | plan.trip | Plans to visit {city} with {name} | 打算和{name}一起去{city}
plan | plan.next | Wants to start {activity} classes next month | 下个月想开始上{activity}课
plan | plan.next | Will cook {food} for {name}'s birthday | 准备在{name}生日时做{food}
reflection | - | Feels calmer after {activity} than after {activity2} | {activity}之后比{activity2}之后更平静
reflection | - | Misses {city} and the {food} there | 很想念{city}和那里的{food}
"""
TEMPLATES = [tuple(part.strip() for part in line.split("|")) for line in _TEMPLATES.strip().splitlines()]
BY_KIND = {kind: [t for t in TEMPLATES if t[0] == kind] for kind in KINDS}

# One detail clause a line, en then zh.
_DETAILS = """
which made them really happy | 这让他们特别开心
and it rained the whole time | 而且一整天都在下雨
with {name2} along | 和{name2}一起
after a long week at work | 在忙碌的一周之后
although it was quite expensive | 虽然有点贵
and they want to do it again | 还想再来一次
because {name2} recommended it | 因为{name2}推荐过
right before the holidays | 就在放假之前
and they laughed about it for days | 为这事笑了好几天
while listening to jazz | 一边听着爵士乐
and it took longer than planned | 比计划花了更久
on a quiet Sunday morning | 在一个安静的周日早上
and they took lots of photos | 拍了很多照片
despite feeling a bit tired | 尽管有点累
with a big group of friends | 和一大群朋友一起
and the weather was perfect | 天气特别好
which reminded them of childhood | 让他们想起了小时候
and {name2} was late again | {name2}又迟到了
after missing the first train | 错过了第一班车之后
and nobody expected it | 谁都没想到
"""
_PAIRS = [[part.strip() for part in line.split("|")] for line in _DETAILS.strip().splitlines()]
DETAILS = {"en": [en for en, _ in _PAIRS], "zh": [zh for _, zh in _PAIRS]}

QUERY_SLOTS = ("animal", "city", "food", "activity", "pet", "name", "job")
FRAMES = {
    "en": ("{}", "{}", "tell me about {}", "do you remember {}", "what about {}", "{}?"),
    "zh": ("{}", "{}吗", "还记得{}", "说说{}", "{}怎么样", "{}呢"),
}


def make_note(lang: str, i: int, *, seed: int = 1, now: float) -> dict:
    """Note `i`: a dict with text, kind, key, importance and happened_at (seconds), ready for remember()."""
    rng = random.Random(f"{seed}-{lang}-{i}")
    words = WORDS[lang]
    kind = rng.choices(KINDS, KIND_WEIGHTS)[0]
    _, key, en, zh = rng.choice(BY_KIND[kind])
    key = None if key == "-" else key
    name, name2 = rng.sample(words["name"], 2)
    food, food2 = rng.sample(words["food"], 2)
    activity, activity2 = rng.sample(words["activity"], 2)
    slots = dict(
        name=name,
        name2=name2,
        food=food,
        food2=food2,
        activity=activity,
        activity2=activity2,
        **{k: rng.choice(words[k]) for k in ("city", "animal", "pet", "job", "rel")},
    )
    text = (en if lang == "en" else zh).format(**slots)
    if rng.random() < DETAIL_SHARE:
        detail = rng.choice(DETAILS[lang]).format(**slots)
        text = f"{text}, {detail}" if lang == "en" else f"{text}，{detail}"
    text += "." if lang == "en" else "。"
    importance = 5 if i in PINNED else rng.choices(IMPORTANCE, IMPORTANCE_WEIGHTS)[0]
    ahead = kind == "plan"  # plans 1-120 days ahead, everything else over the past two years
    happened_at = now + rng.uniform(1, 120) * DAY if ahead else now - rng.uniform(0, 730) * DAY
    keyed = key is not None and rng.random() < KEY_SHARE
    return {
        "text": text,
        "kind": kind,
        "key": key if keyed else None,
        "importance": importance,
        "happened_at": round(happened_at, 3),
    }


def make_notes(lang: str, n: int, *, seed: int = 1, now: float, start: int = 0) -> Iterator[dict]:
    """Notes `start` .. `n - 1`."""
    for i in range(start, n):
        yield make_note(lang, i, seed=seed, now=now)


def make_queries(lang: str, n: int = 200, *, seed: int = 1) -> list[str]:
    """`n` queries of 1-3 slot words ("rabbit", "tell me about Kyoto hiking"; "兔子吗", "还记得杭州火锅")."""
    out = []
    for j in range(n):
        rng = random.Random(f"{seed}-{lang}-query-{j}")
        picked = [rng.choice(WORDS[lang][slot]) for slot in rng.sample(QUERY_SLOTS, rng.randint(1, 3))]
        out.append(rng.choice(FRAMES[lang]).format((" " if lang == "en" else "").join(picked)))
    return out


if __name__ == "__main__":  # a quick look: python benchmarks/notes.py
    from collections import Counter

    for lang in LANGS:
        sample = list(make_notes(lang, 2000, now=1.7e9))
        print(lang, Counter(n["kind"] for n in sample), Counter(n["importance"] for n in sample))
        print(
            "  keyed:",
            sum(n["key"] is not None for n in sample),
            "distinct texts:",
            len({n["text"] for n in sample}),
        )
        for note in sample[:4]:
            print("  ", note)
        print("  ", make_queries(lang, 8))
