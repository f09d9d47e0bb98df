"""Bilingual vocabulary of metadata values: kinds of document, reader levels, languages, tech nouns.

Self-query matches the values a user declared ("tutorial", "api_reference", "object-storage", "zh")
against a question in either language. Declared values are English words or ISO codes, so a Chinese
question needs its words in English: `zh_segments` finds the glossary terms of a Chinese text by
longest match and gives their English phrases ("操作指南" -> "how-to guide", "数据" -> "data"), and
`language_names` gives the names of an ISO 639-1 code in both languages ("ja" -> Japanese, 日文, 日语).
This is general vocabulary of documentation sites and software (the words such metadata is made
of), not the values of any one schema; the other glossary (`glossary.py`) covers question words.
"""

from __future__ import annotations

import re
from functools import lru_cache

# ISO 639-1 code -> names (English first, then Chinese).
LANGUAGES: dict[str, tuple[str, ...]] = {
    "en": ("English", "英文", "英语"), "zh": ("Chinese", "Mandarin", "中文", "汉语", "简体中文", "华语"),
    "ja": ("Japanese", "日文", "日语"), "de": ("German", "德文", "德语"), "fr": ("French", "法文", "法语"),
    "es": ("Spanish", "西班牙文", "西班牙语"), "pt": ("Portuguese", "葡萄牙文", "葡萄牙语"),
    "ru": ("Russian", "俄文", "俄语"), "ko": ("Korean", "韩文", "韩语", "朝鲜语"), "it": ("Italian", "意大利文", "意大利语"),
    "ar": ("Arabic", "阿拉伯文", "阿拉伯语"), "hi": ("Hindi", "印地语"), "nl": ("Dutch", "荷兰文", "荷兰语"),
    "vi": ("Vietnamese", "越南文", "越南语"), "th": ("Thai", "泰文", "泰语"), "tr": ("Turkish", "土耳其语"),
    "pl": ("Polish", "波兰语"), "sv": ("Swedish", "瑞典语"), "id": ("Indonesian", "印尼语", "印度尼西亚语"),
}

# Chinese term -> English phrases, by theme. Longer terms win over their parts when segmenting.
_KINDS = {
    "教程": ("tutorial",), "教学": ("tutorial", "teaching"), "指南": ("guide",), "操作指南": ("how-to guide",),
    "使用指南": ("user guide", "guide"), "用户指南": ("user guide",), "入门指南": ("getting started guide",),
    "快速入门": ("quickstart", "getting started"), "手册": ("manual", "handbook"), "文档": ("documentation", "docs"),
    "参考": ("reference",), "参考文档": ("reference",), "参考手册": ("reference manual",), "接口": ("api", "interface"),
    "说明": ("explanation", "instructions"), "发布说明": ("release notes",), "发行说明": ("release notes",),
    "版本说明": ("release notes",), "更新日志": ("changelog",), "变更日志": ("changelog",), "博客": ("blog",),
    "博文": ("blog post",), "博客文章": ("blog post",), "技术博客": ("tech blog", "blog"), "帖子": ("post",), "文章": ("article",), "论文": ("paper",), "报告": ("report",),
    "白皮书": ("whitepaper", "white paper"), "案例": ("case", "example"), "案例研究": ("case study",),
    "案例分析": ("case study",), "客户案例": ("customer story", "case study"), "常见问题": ("faq", "frequently asked questions"),
    "常见问题解答": ("faq",), "问答": ("q&a", "faq"), "视频": ("video",), "录像": ("recording", "video"),
    "网络研讨会": ("webinar",), "演示": ("demo",), "幻灯片": ("slides",), "书": ("book",), "书籍": ("book",),
    "新闻": ("news",), "公告": ("announcement",), "示例": ("example", "sample"), "样例": ("sample", "example"),
    "范例": ("example",), "代码": ("code",), "源代码": ("source code",), "代码片段": ("snippet",), "课程": ("course",),
    "讲解": ("walkthrough", "explanation"), "概述": ("overview",), "概览": ("overview",), "概念": ("concept",),
    "术语表": ("glossary",), "故障排除": ("troubleshooting",), "故障排查": ("troubleshooting",), "排错": ("troubleshooting",),
    "最佳实践": ("best practice",), "规范": ("specification",), "规格": ("specification",), "模板": ("template",),
    "页面": ("page",), "资料": ("material",), "内容": ("content",), "路线图": ("roadmap",), "词典": ("dictionary",),
}
_LEVELS = {
    "入门": ("beginner", "introductory", "getting started"), "初级": ("beginner", "basic"), "初学者": ("beginner",),
    "新手": ("beginner", "novice"), "基础": ("basic", "fundamentals"), "中级": ("intermediate",),
    "进阶": ("advanced", "intermediate"), "高级": ("advanced",), "深入": ("in-depth", "advanced"), "专家": ("expert",),
    "简单": ("easy", "simple"), "困难": ("hard", "difficult"), "难度": ("difficulty",),
}
_TECH = {
    "对象": ("object",), "存储": ("storage",), "对象存储": ("object storage",), "块存储": ("block storage",),
    "文件存储": ("file storage",), "无服务器": ("serverless",), "函数": ("function",), "计算": ("compute",),
    "虚拟机": ("virtual machine", "vm"), "容器": ("container",), "集群": ("cluster",), "服务": ("service",),
    "数据": ("data",), "数据库": ("database",), "仓库": ("warehouse", "repository"), "数据仓库": ("data warehouse",),
    "数据湖": ("data lake",), "消息": ("message", "messaging"), "队列": ("queue",), "消息队列": ("message queue",),
    "流": ("stream",), "流处理": ("stream processing",), "身份": ("identity",), "访问": ("access",),
    "权限": ("permission", "access"), "访问控制": ("access control",), "身份认证": ("authentication",),
    "认证": ("authentication",), "鉴权": ("authorization", "authentication"), "授权": ("authorization",),
    "登录": ("login", "sign-in"), "单点登录": ("single sign-on", "sso"), "密钥": ("key",), "证书": ("certificate",),
    "部署": ("deployment", "deploy"), "发布": ("release", "publish"), "监控": ("monitoring",), "告警": ("alerting",),
    "日志": ("logging", "log"), "计费": ("billing",), "账单": ("billing", "bill"), "价格": ("pricing", "price"),
    "定价": ("pricing",), "费用": ("cost", "billing"), "成本": ("cost",), "网络": ("networking", "network"),
    "安全": ("security",), "性能": ("performance",), "调优": ("tuning",), "优化": ("optimization",),
    "迁移": ("migration",), "备份": ("backup",), "恢复": ("recovery", "restore"), "扩展": ("scaling", "extension"),
    "伸缩": ("scaling",), "弹性": ("elastic", "scaling"), "负载均衡": ("load balancing", "load balancer"),
    "网关": ("gateway",), "域名": ("domain",), "缓存": ("cache", "caching"), "搜索": ("search",), "分析": ("analytics", "analysis"),
    "机器学习": ("machine learning",), "人工智能": ("artificial intelligence", "ai"), "模型": ("model",),
    "管道": ("pipeline",), "流水线": ("pipeline",), "工作流": ("workflow",), "事件": ("event",), "通知": ("notification",),
    "邮件": ("email",), "支付": ("payment",), "用户": ("user",), "账户": ("account",), "账号": ("account",),
    "角色": ("role",), "策略": ("policy",), "配额": ("quota",), "区域": ("region",), "可用区": ("availability zone",),
    "控制台": ("console",), "命令行": ("command line", "cli"), "开发工具包": ("sdk",), "集成": ("integration",),
    "测试": ("testing",), "调试": ("debugging",), "安装": ("installation",), "配置": ("configuration",),
    "升级": ("upgrade",), "兼容性": ("compatibility",), "可观测性": ("observability",), "合规": ("compliance",),
    "加密": ("encryption",), "隐私": ("privacy",), "移动": ("mobile",), "移动端": ("mobile",), "桌面": ("desktop",),
    "网页": ("web",), "前端": ("frontend",), "后端": ("backend",), "开源": ("open source",), "免费": ("free",),
    "付费": ("paid",), "企业": ("enterprise",), "稳定": ("stable",), "测试版": ("beta",), "预览": ("preview",),
    "弃用": ("deprecated",), "已弃用": ("deprecated",), "实时": ("real-time",), "批处理": ("batch",),
    "语言": ("language",), "版本": ("version",), "平台": ("platform",), "硬件": ("hardware",), "软件": ("software",),
}

_PEOPLE = {  # who a document, product or record is for or about
    "管理员": ("administrator", "admin"), "系统管理员": ("system administrator", "administrator"),
    "开发者": ("developer",), "开发人员": ("developer",), "程序员": ("programmer", "developer"),
    "工程师": ("engineer",), "最终用户": ("end user",), "终端用户": ("end user",), "普通用户": ("end user", "regular user"),
    "客户": ("customer", "client"), "顾客": ("customer",), "会员": ("member",), "访客": ("guest", "visitor"),
    "学生": ("student",), "教师": ("teacher",), "老师": ("teacher",), "研究人员": ("researcher",),
    "经理": ("manager",), "主管": ("supervisor", "manager"), "员工": ("employee", "staff"), "职员": ("employee", "staff"),
    "雇员": ("employee",), "实习生": ("intern",), "承包商": ("contractor",), "供应商": ("supplier", "vendor"),
    "厂商": ("vendor", "manufacturer"), "合作伙伴": ("partner",), "运维人员": ("operator", "operations"),
    "技术人员": ("technician",), "分析师": ("analyst",), "设计师": ("designer",), "销售人员": ("salesperson", "sales"),
    "儿童": ("kids", "children"), "男士": ("men",), "女士": ("women",), "男性": ("male", "men"), "女性": ("female", "women"),
    "成人": ("adult",), "婴儿": ("baby",), "老年人": ("senior", "elderly"), "团队": ("team",), "部门": ("department",),
}
_DEVICES = {  # platforms, devices and what one does with them
    "安卓": ("android",), "苹果": ("apple",), "微软": ("microsoft",), "视窗": ("windows",), "手机": ("phone", "mobile"),
    "智能手机": ("smartphone", "phone"), "平板": ("tablet",), "平板电脑": ("tablet",), "笔记本": ("laptop", "notebook"),
    "笔记本电脑": ("laptop",), "台式机": ("desktop",), "电脑": ("computer", "pc"), "服务器": ("server",),
    "打印机": ("printer",), "路由器": ("router",), "交换机": ("switch",), "摄像头": ("camera", "webcam"),
    "相机": ("camera",), "耳机": ("headphones", "earphones"), "音箱": ("speaker",), "显示器": ("monitor", "display"),
    "键盘": ("keyboard",), "鼠标": ("mouse",), "手表": ("watch",), "智能手表": ("smartwatch",), "电视": ("tv", "television"),
    "固件": ("firmware",), "驱动": ("driver",), "驱动程序": ("driver",), "浏览器": ("browser",),
    "应用": ("app", "application"), "应用程序": ("application", "app"), "操作系统": ("operating system", "os"),
    "设备": ("device",), "安装": ("installation", "install"), "卸载": ("uninstall",), "更新": ("update",),
    "设置": ("settings", "setup"), "激活": ("activation",), "许可": ("license", "licensing"), "许可证": ("license",),
    "订阅": ("subscription",), "打印": ("printing", "print"), "扫描": ("scanning", "scan"), "无线": ("wireless",),
    "蓝牙": ("bluetooth",), "连接": ("connection", "connectivity"), "电源": ("power",), "电池": ("battery",),
    "充电": ("charging",), "维修": ("repair",), "保修": ("warranty",), "同步": ("sync",), "故障": ("fault", "failure"),
    "错误": ("error",), "重置": ("reset",), "数据表": ("datasheet", "data sheet"), "规格书": ("datasheet", "specification"),
    "说明书": ("manual", "instructions"), "用户手册": ("user manual",), "培训": ("training",), "硬件": ("hardware",),
}
_COMMERCE = {  # shops and orders
    "商品": ("product", "item"), "产品": ("product",), "订单": ("order",), "折扣": ("discount",), "打折": ("discount", "sale"),
    "促销": ("promotion", "sale"), "特价": ("sale", "special offer"), "优惠": ("discount", "deal"), "优惠券": ("coupon",),
    "库存": ("stock", "inventory"), "有货": ("in stock",), "现货": ("in stock",), "缺货": ("out of stock",),
    "售罄": ("sold out",), "预售": ("preorder", "pre-order"), "新品": ("new", "new arrival"), "全新": ("new", "brand new"),
    "二手": ("used", "second-hand"), "翻新": ("refurbished",), "品牌": ("brand",), "类别": ("category",),
    "分类": ("category",), "尺寸": ("size",), "尺码": ("size",), "颜色": ("color", "colour"), "材质": ("material",),
    "重量": ("weight",), "包邮": ("free shipping",), "免运费": ("free shipping",), "运费": ("shipping",),
    "配送": ("delivery", "shipping"), "发货": ("shipping", "shipment"), "物流": ("logistics", "shipping"),
    "退货": ("return", "returns"), "退款": ("refund",), "换货": ("exchange",), "评价": ("review",), "评论": ("review", "comment"),
    "评分": ("rating",), "销量": ("sales",), "畅销": ("bestseller", "best-selling"), "热销": ("bestseller", "best-selling"),
    "限量": ("limited edition", "limited"), "电子产品": ("electronics",), "家电": ("appliances", "home appliances"),
    "服装": ("clothing", "apparel"), "衣服": ("clothing", "clothes"), "鞋子": ("shoes",), "鞋类": ("footwear", "shoes"),
    "配件": ("accessories",), "家居": ("home",), "厨房": ("kitchen",), "家具": ("furniture",), "图书": ("books", "book"),
    "玩具": ("toys",), "运动": ("sports",), "户外": ("outdoor", "outdoors"), "美妆": ("beauty",), "化妆品": ("cosmetics", "beauty"),
    "护肤": ("skincare",), "食品": ("food", "grocery"), "饮料": ("beverages", "drinks"), "母婴": ("baby",),
    "宠物": ("pet", "pets"), "宠物用品": ("pet supplies",), "珠宝": ("jewelry",), "首饰": ("jewelry",),
    "汽车": ("automotive", "car"), "办公用品": ("office supplies",), "文具": ("stationery",), "园艺": ("garden", "gardening"),
    "红色": ("red",), "蓝色": ("blue",), "黑色": ("black",), "白色": ("white",), "绿色": ("green",), "黄色": ("yellow",),
    "灰色": ("gray", "grey"), "粉色": ("pink",), "粉红色": ("pink",), "紫色": ("purple",), "橙色": ("orange",),
    "棕色": ("brown",), "银色": ("silver",), "金色": ("gold",), "小号": ("small",), "中号": ("medium",), "大号": ("large",),
    "加大号": ("extra large", "xl"), "均码": ("one size",), "信用卡": ("credit card",), "现金": ("cash",),
    "货到付款": ("cash on delivery",), "银行转账": ("bank transfer",), "分期": ("installment", "installments"),
    "待付款": ("pending payment",), "已付款": ("paid",), "已发货": ("shipped",), "运输中": ("in transit",),
    "已送达": ("delivered",), "已签收": ("delivered",), "已取消": ("cancelled", "canceled"), "取消": ("cancelled", "cancel"),
    "已退款": ("refunded",), "处理中": ("processing",), "已完成": ("completed",), "待处理": ("pending",),
}
_ORG = {  # organisations, people's work and its records
    "公司": ("company",), "总部": ("headquarters",), "分公司": ("branch",), "办公室": ("office",),
    "工程部": ("engineering",), "研发": ("research and development", "engineering"), "研发部": ("engineering",),
    "技术部": ("engineering", "technology"), "销售": ("sales",), "销售部": ("sales",), "市场": ("marketing", "market"),
    "市场部": ("marketing",), "营销": ("marketing",), "财务": ("finance",), "财务部": ("finance",), "会计": ("accounting",),
    "人力资源": ("human resources", "hr"), "人事": ("human resources", "hr", "personnel"), "人事部": ("human resources", "hr"),
    "法务": ("legal",), "法律": ("legal", "law"), "客服": ("customer support", "customer service", "support"),
    "客户服务": ("customer service", "customer support"), "技术支持": ("technical support", "support"), "支持": ("support",),
    "运营": ("operations",), "运维": ("operations", "ops"), "行政": ("administration", "admin"),
    "采购": ("procurement", "purchasing"), "设计": ("design",), "质量": ("quality",), "质检": ("quality assurance", "qa"),
    "全职": ("full-time", "full time"), "兼职": ("part-time", "part time"), "合同": ("contract",), "合同工": ("contractor", "contract"),
    "临时": ("temporary",), "实习": ("internship", "intern"), "远程": ("remote",), "远程办公": ("remote",),
    "居家办公": ("remote", "work from home"), "现场": ("on-site", "onsite"), "混合办公": ("hybrid",),
    "在职": ("active", "employed"), "离职": ("terminated", "resigned"), "已离职": ("terminated", "former"),
    "退休": ("retired",), "试用期": ("probation",), "休假": ("leave",), "请假": ("leave",), "年假": ("annual leave",),
    "病假": ("sick leave",), "产假": ("maternity leave",), "育儿假": ("parental leave",), "陪产假": ("paternity leave",),
    "事假": ("personal leave",), "无薪假": ("unpaid leave",), "加班": ("overtime",), "工资": ("salary", "wage", "pay"),
    "薪资": ("salary", "compensation"), "薪酬": ("compensation", "salary", "pay"), "奖金": ("bonus",), "福利": ("benefits",),
    "保险": ("insurance",), "医疗保险": ("health insurance",), "养老金": ("pension",), "报销": ("reimbursement", "expenses"),
    "差旅": ("travel",), "出差": ("business travel", "travel"), "绩效": ("performance",), "考核": ("review", "evaluation"),
    "绩效考核": ("performance review",), "晋升": ("promotion",), "入职": ("onboarding",), "招聘": ("recruiting", "hiring"),
    "面试": ("interview",), "政策": ("policy",), "规定": ("policy", "regulation", "rule"), "制度": ("policy",),
    "流程": ("process", "procedure"), "表格": ("form", "table", "spreadsheet"), "申请": ("application", "request"),
    "审批": ("approval",), "行为准则": ("code of conduct",), "职级": ("level", "grade"), "级别": ("level",),
    "职位": ("position", "title", "role"), "岗位": ("position", "role"), "资深": ("senior",), "首席": ("chief", "principal"),
    "总监": ("director",), "主任": ("director",), "副总裁": ("vice president", "vp"), "应届生": ("graduate", "new grad"),
    "正式员工": ("permanent", "full-time"), "外包": ("outsourced", "contractor"),
    "初级": ("junior",), "中级": ("mid-level",), "高级": ("senior",),  # levels of a job too (merged with _LEVELS)
}
_RECORDS = {  # status, schedule, visibility, media and formats of records in general
    "草稿": ("draft",), "已发布": ("published",), "归档": ("archived", "archive"), "已归档": ("archived",),
    "过期": ("expired",), "已过期": ("expired",), "有效": ("active", "valid"), "活跃": ("active",), "待定": ("pending",),
    "进行中": ("in progress",), "已关闭": ("closed",), "开放": ("open",), "紧急": ("urgent",), "重要": ("important",),
    "高优先级": ("high priority", "high"), "低优先级": ("low priority", "low"), "公开": ("public",), "私有": ("private",),
    "内部": ("internal",), "机密": ("confidential",), "外部": ("external",), "每日": ("daily",), "每周": ("weekly",),
    "每月": ("monthly",), "每年": ("annual", "yearly"), "年度": ("annual",), "季度": ("quarterly", "quarter"),
    "年报": ("annual report",), "月报": ("monthly report",), "周报": ("weekly report",), "音频": ("audio",),
    "播客": ("podcast",), "图片": ("image", "picture"), "照片": ("photo",), "图表": ("chart",), "电子表格": ("spreadsheet",),
    "演示文稿": ("presentation", "slides"), "文件": ("file", "document"), "发票": ("invoice",), "收据": ("receipt",),
    "简历": ("resume", "cv"), "电子书": ("ebook",), "杂志": ("magazine",), "期刊": ("journal",), "报纸": ("newspaper",),
    "数据手册": ("datasheet",), "规格说明": ("specification",), "宣传册": ("brochure",), "海报": ("poster",),
    "信息图": ("infographic",), "直播": ("live stream", "livestream"), "讲座": ("lecture",), "会议": ("conference", "meeting"),
    "研讨会": ("workshop", "seminar"), "工作坊": ("workshop",), "考试": ("exam",), "医疗": ("medical", "healthcare"),
    "健康": ("health",), "教育": ("education",), "金融": ("finance", "financial"), "银行": ("banking", "bank"),
    "零售": ("retail",), "制造": ("manufacturing",), "制造业": ("manufacturing",), "交通": ("transportation",),
    "能源": ("energy",), "政府": ("government",), "娱乐": ("entertainment",), "游戏": ("gaming", "games"),
    "旅游": ("travel",), "餐饮": ("food and beverage", "restaurant"), "房地产": ("real estate",), "农业": ("agriculture",),
    "电信": ("telecom", "telecommunications"), "媒体": ("media",), "体育": ("sports",), "科学": ("science",),
    "技术": ("technology",), "科技": ("technology",),
}


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for part in (_KINDS, _LEVELS, _TECH, _PEOPLE, _DEVICES, _COMMERCE, _ORG, _RECORDS):
        for zh, en in part.items():
            table[zh] = tuple(dict.fromkeys([*table.get(zh, ()), *en]))
    for names in LANGUAGES.values():
        for zh in names[1:]:
            if re.search(r"[\u3400-\u9fff]", zh):
                table[zh] = (names[0],)
    return table


def language_names(code: str) -> tuple[str, ...]:
    """Names of an ISO 639-1 language code in English and Chinese (empty for an unknown code)."""
    return LANGUAGES.get(code.lower(), ())


def zh_segments(text: str, extra: dict[str, tuple[str, ...]] | None = None) -> list[tuple[int, int, tuple[str, ...]]]:
    """Glossary terms of a Chinese text, longest first at each position: (start, end, English phrases).
    `extra` adds terms (a schema's own, from `parallel_terms`), their phrases before the glossary's."""
    table = _table()
    if extra:
        table = {**table, **{k: tuple(dict.fromkeys([*v, *table.get(k, ())])) for k, v in extra.items()}}
    longest = max(map(len, table))
    out: list[tuple[int, int, tuple[str, ...]]] = []
    for m in re.finditer(r"[\u3400-\u9fff]+", text):
        run, base, i = m.group(), m.start(), 0
        while i < len(run):
            for size in range(min(longest, len(run) - i), 0, -1):
                if run[i:i + size] in table:
                    out.append((base + i, base + i + size, table[run[i:i + size]]))
                    i += size
                    break
            else:
                i += 1
    return out


_EN_ANCHOR = re.compile(r"^\s*|[:;(,]\s*|\b(?:such as|like|including)\s+")
_EN_LIST = re.compile(r"[A-Za-z][\w\- ]*(?:\s*,\s*(?:and\s+|or\s+)?[A-Za-z][\w\- ]*)*")
_ZH_ITEM = re.compile(r"^[\u3400-\u9fff]{1,8}$")
_PAIRED = (re.compile(r"([A-Za-z][A-Za-z\- ]{1,40}?)\s*[（(]\s*([\u3400-\u9fff]{1,8})\s*[)）]"),
           re.compile(r"([\u3400-\u9fff]{1,8})\s*[（(]\s*([A-Za-z][A-Za-z\- ]{1,40}?)\s*[)）]"))


def _en_lists(text: str) -> list[list[str]]:
    out = []
    text = re.sub(r"\b(?:e\.g\.|i\.e\.)", "such as", text)
    for sentence in re.split(r"(?<=[a-z0-9)])\.\s+|[。！？（）()\u3400-\u9fff]", text):
        for anchor in _EN_ANCHOR.finditer(sentence):  # every place a list may start: lists overlap
            m = _EN_LIST.match(sentence, anchor.end())
            if not m:
                continue
            items = [re.sub(r"^(?:and|or|such as|like|including)\s+|\s+(?:etc|and so on)$", "", x.strip(), flags=re.I)
                     for x in re.split(r"\s*,\s*|\s+(?:and|or)\s+", m.group())]
            items = [x.lower() for x in items if x]
            if len(items) >= 2 and all(len(x.split()) <= 4 for x in items):
                out.append(items)
    return out


def _zh_lists(text: str) -> list[list[str]]:
    out = []
    for part in re.split(r"[。！？.;；\n：:（）()]", text):
        part = re.sub(r"(?:等等|等)$", "", part.strip())
        items = [x.strip() for x in re.split(r"[、，,]|和|或|及", part) if x.strip()]
        if len(items) >= 2 and all(_ZH_ITEM.match(x) for x in items):
            out.append(items)
    return out


def parallel_terms(*texts: str) -> dict[str, tuple[str, ...]]:
    """Chinese terms with their English spellings from bilingual descriptions a user wrote: an English
    enumeration and a Chinese one of the same length in one text are read item by item ("manuals,
    guides, videos. 手册、指南、视频。"), and "term (术语)" / "术语 (term)" pairs."""
    out: dict[str, tuple[str, ...]] = {}
    for text in texts:
        if not text:
            continue
        zh_lists = _zh_lists(text)
        for en in _en_lists(text):
            zh = next((z for z in zh_lists if len(z) == len(en)), None)
            if zh is None:
                continue
            zh_lists.remove(zh)
            for a, b in zip(zh, en, strict=True):
                out[a] = tuple(dict.fromkeys([*out.get(a, ()), b]))
        for pattern in _PAIRED:
            for m in pattern.finditer(text):
                en_term, zh_term = (m.group(1), m.group(2)) if pattern is _PAIRED[0] else (m.group(2), m.group(1))
                en_term = en_term.strip().lower()
                if len(en_term.split()) <= 4:
                    out[zh_term] = tuple(dict.fromkeys([*out.get(zh_term, ()), en_term]))
    return out
