// What each 名堂 means, one line in either language, for the result sheet (result.js) and the
// replay: the readings of docs/rules.md §7.2 and §7.4.1 (RULES §7.2, §7.4), said short. W is
// the winning card, 麻雀 the winning pair; a 团圆 is all four cards of a face in one winner's
// hand with three of them a triple (RULES §6.3); a 口 is a red 团圆.
import { currentLang } from "./i18n.js";

const ABOUT = {
  yin: ["每个红团圆（口）计分", "so much per red 团圆 (口)"],
  chunyin: ["有口，且每张红牌都在口里", "at least one 口, and every red card is in one"],
  hong: ["十张或以上红牌，每多一张计一次", "10 or more red cards, counted per red card above nine"],
  duizi: ["没有顺子：六组三张加麻雀", "no run at all: six triples and the 麻雀"],
  wudui: ["对子胡且没有红牌", "对子胡 with no red card"],
  wu: ["没有红牌", "no red card"],
  dian: ["只有一张红牌", "exactly one red card"],
  manyuan: ["七组（连麻雀）每组都有红牌", "each of the seven groups, the 麻雀 too, holds a red card"],
  dazi: ["二十张全是大字", "all 20 cards big (壹…拾)"],
  xiaozi: ["二十张全是小字", "all 20 cards small (一…十)"],
  zhuo: ["两个团圆", "two 团圆"],
  zimei: ["两个相连的团圆", "two 团圆 of consecutive numbers"],
  sanluan: ["三个团圆，互不相连", "three 团圆, no two consecutive"],
  zimei_tuo: ["三个团圆，其中两个相连", "three 团圆, exactly two of them consecutive"],
  zusun: ["三个相连的团圆", "three consecutive 团圆"],
  siluan: ["四个团圆", "four 团圆"],
  zusun_tuo: ["三个相连的团圆再加一个", "three consecutive 团圆 and one more"],
  bapengtou: ["八和捌都是团圆", "八 and 捌 are both 团圆"],
  jia_bapengtou: ["另一个数的大小字都是团圆", "the small and big face of another number are both 团圆"],
  longbaiwei: ["一和十（或壹和拾）都是团圆", "一 and 十 (or 壹 and 拾) are both 团圆"],
  haidi: ["胡底牌的最后一张", "won on the stock's last card"],
  zimo: ["胡自己翻出的牌", "won on one's own draw"],
  dandiao: ["胡张和最后一张手牌成麻雀", "the winning card pairs one's last concealed card as the 麻雀"],
  beikaobei: ["胡前两对是同一个数的大小字", "before the win two pairs of one number, small and big"],
  shouqianshou: ["胡前两对是相连的同类字", "before the win two pairs of adjacent numbers, one size"],
  kawei: ["胡张是要偎的牌，硬息正好够起胡", "won on the forced 偎 with 硬息 exactly the minimum"],
  tianhu: ["庄家起手二十张就胡", "the dealer's 20 dealt cards already win"],
  jiuxiaodui: ["起手九对", "nine pairs among the dealt cards"],
  wudui_deal: ["起手没有对子", "no face dealt twice (or one black pair only)"],
  zhe: ["先前放过一次胡，后来胡了", "declined a 胡 earlier in the hand, then won"],
  manyuan_2xi: ["满园花，硬息正好二息（可不够起胡）", "满园花 with 硬息 exactly 2 (wins below the minimum)"],
  liang_zimei: ["四个团圆成两对相连", "four 团圆 in two separate consecutive pairs"],
  silian: ["四个相连的同类团圆", "four consecutive 团圆 of one size"],
  quanqiuren: ["胡前只剩一张手牌，没偎、没自吃", "one concealed card before the win, no 偎, no 吃 of one's own draw"],
  meinv: ["全求人且麻雀是红的", "全求人 with a red 麻雀"],
  dingdui: ["对子胡且麻雀是红的", "对子胡 with a red 麻雀"],
  piaodui: ["对子胡，六组三张里只有一组有红", "对子胡 where exactly one of the six triples holds red"],
  jiding: ["别人翻出的胡张成麻雀，又在手里顺子的中间", "W drawn by another makes the 麻雀 and sits mid-run in hand"],
  bianding: ["别人翻出的胡张成麻雀，又在手里顺子的边上", "W drawn by another makes the 麻雀 and ends a run in hand"],
  yuanyuanding: ["别人翻出的胡张成麻雀，起手有三张", "W drawn by another makes the 麻雀; three of W were dealt"],
  biankan: ["胡张卡在手里顺子的中间（或边三、边八）", "W sits mid-run in hand (or 三 on 一二, 八 under 九十)"],
  shangxia: ["硬息十，碰偎五息，其余五息", "硬息 10: 5 from 碰 and 偎, 5 from the rest"],
  duidao: ["胡张把一对补成三张", "W completes a pair into a triple (对倒)"],
  zhen_beikaobei: ["背靠背在八和捌", "背靠背 on 八 and 捌"],
  fengbaiwei: ["对倒：胡张和麻雀是一和十", "对倒: W and the 麻雀 numbered 1 and 10"],
  geshan: ["对倒：胡张和麻雀同类，数隔一个", "对倒: W and the 麻雀 of one size, two numbers apart"],
  kahu: ["硬息正好够起胡", "硬息 exactly the minimum to win"],
  zhezhe: ["先前放过胡的同一张牌，后来胡了", "won on the very face one declined to 胡 earlier"],
  xinlianxin: ["两个顺子首尾相接", "two runs sharing an end card (四五六 + 六七八)"],
  yitiaolong: ["硬息十，有同类的一二三、四五六、七八九", "硬息 10 with 一二三, 四五六, 七八九 of one size"],
  huozhuo: ["自己翻出（或偎）三胡牌", "won on one's own draw of 三"],
  lianghong: ["硬息十，正好两红两黑的碰", "硬息 10 from exactly two red and two black 碰"],
  erlong: ["只有两张红牌，有一二三和壹贰叁", "exactly two red cards, with 一二三 and 壹贰叁"],
  hongzhadan: ["起手四张同一红字", "four of a red face dealt"],
  heizhadan: ["起手四张同一黑字", "four of a black face dealt"],
  quanhei: ["起手没有红牌", "no red card dealt"],
  liuduihong: ["起手六对或以上红对", "six red pairs or more dealt"],
  sibiandui: ["起手一、十、壹、拾各两张以上", "at least two each of 一, 十, 壹, 拾 dealt"],
  quankan: ["起手没有单张", "no face dealt only once"],
  tongzha: ["起手同一个数大小字各四张", "four of a number in both sizes dealt"],
  zimeizha: ["起手两个相连的字各四张", "four each of two consecutive faces dealt"],
  diasunzha: ["起手三个相连的字各四张", "four each of three consecutive faces dealt"],
  zusunzha: ["起手四个相连的字各四张", "four each of four consecutive faces dealt"],
};

/** What a 名堂 means in the page's language ("" for a key the page does not know). */
export function aboutPattern(key) {
  const both = ABOUT[key];
  return both ? both[currentLang() === "en" ? 1 : 0] : "";
}

/** The keys explained (a test checks every 名堂 of the server is). */
export const EXPLAINED = Object.keys(ABOUT);
